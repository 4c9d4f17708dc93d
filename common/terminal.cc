#include "common/terminal.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <limits>
#include <string_view>

#include "common/text.h"

namespace ompscale {

namespace {
constexpr std::size_t kHelpWidth = 100;
}  // namespace

std::size_t output_width(int fd) {
  if (::isatty(fd)) {
    winsize size{};
    if (::ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  }
  const char* columns = std::getenv("COLUMNS");
  if (columns == nullptr) return 0;
  const std::string_view text(columns);
  const auto value = parse_integer(text, 0, std::numeric_limits<long long>::max());
  return value ? static_cast<std::size_t>(*value) : 0;
}

std::size_t help_width(int fd) {
  const std::size_t width = output_width(fd);
  return width == 0 || width > kHelpWidth ? kHelpWidth : width;
}

}  // namespace ompscale

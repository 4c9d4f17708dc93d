#include "common/error.h"

#include <fmt/format.h>

namespace ompscale {

namespace {
std::string locate(const std::string& file, std::size_t line, const std::string& cause) {
  if (line == 0) return fmt::format("{}: {}", file, cause);
  return fmt::format("{}:{}: {}", file, line, cause);
}
}  // namespace

InputError::InputError(std::string file, std::size_t line, const std::string& cause)
    : std::runtime_error(locate(file, line, cause)), file_(std::move(file)), line_(line) {}

std::string version_string() {
  return fmt::format("{} (git {})", OMPSCALE_VERSION, OMPSCALE_GIT_HASH);
}

}  // namespace ompscale

#include "regions/ompt/run_delay.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

// Plain system calls: no allocation, and no descriptor outlives the call.
namespace ompscale::regions::ompt {

std::optional<std::uint64_t> thread_run_delay_ns() {
  const int saved_errno = errno;  // the application's, which a tool callback must not change
  const int fd = ::open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
  char text[96];
  ssize_t n = -1;
  if (fd >= 0) {
    do {
      n = ::read(fd, text, sizeof(text));
    } while (n < 0 && errno == EINTR);
    ::close(fd);
  }
  errno = saved_errno;
  if (n <= 0) return std::nullopt;
  return parse_run_delay(std::string_view(text, static_cast<std::size_t>(n)));
}

}  // namespace ompscale::regions::ompt

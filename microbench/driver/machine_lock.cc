#include "microbench/driver/machine_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "common/interrupt.h"

namespace ompscale::microbench {

MachineLock::MachineLock(const std::string& path) {
  if (path.empty()) return;
  std::error_code ignored;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ignored);
  fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd_ < 0)
    warning_ = "cannot open the machine lock " + path + ": " + std::strerror(errno) +
               "; concurrent ompbench runs would measure each other";
}

MachineLock::~MachineLock() {
  if (fd_ >= 0) close(fd_);
}

MachineLock::Held MachineLock::acquire() {
  if (fd_ < 0) return Held(-1);
  // Without LOCK_NB first: the common case (no other ompbench) costs one system call.
  if (flock(fd_, LOCK_EX | LOCK_NB) == 0) return Held(fd_);
  const auto start = std::chrono::steady_clock::now();
  int result = -1;
  // Blocking; SIGINT/SIGTERM interrupt it (the InterruptGuard's handler has no SA_RESTART).
  while ((result = flock(fd_, LOCK_EX)) != 0 && errno == EINTR && !interrupted()) {
  }
  waited_seconds_ +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return Held(result == 0 ? fd_ : -1);
}

MachineLock::Held::Held(Held&& other) noexcept : fd_(other.fd_) {
  other.fd_ = -1;
}

MachineLock::Held::~Held() {
  if (fd_ >= 0) flock(fd_, LOCK_UN);
}

}  // namespace ompscale::microbench

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
  // flock needs no write access: another user's lock file (umask 022) is still usable.
  if (fd_ < 0) fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0)
    warning_ = "cannot open the machine lock " + path + ": " + std::strerror(errno) +
               "; concurrent ompbench runs would measure each other";
}

MachineLock::~MachineLock() {
  if (fd_ >= 0) close(fd_);
}

MachineLock::Held MachineLock::acquire() {
  if (fd_ < 0 || interrupted()) return Held(-1);
  // Without blocking first: the common case (no other ompbench) costs one system call.
  if (flock(fd_, LOCK_EX | LOCK_NB) == 0) return Held(fd_);
  if (errno != EWOULDBLOCK) return failed(errno);
  const auto start = std::chrono::steady_clock::now();
  int result = -1;
  // Blocking, so the kernel wakes a waiter the moment the holder's round ends and the runs take
  // turns. SIGINT/SIGTERM interrupt it (the InterruptGuard's handler has no SA_RESTART); one
  // arriving between the check above and the call waits for the holder's round at most.
  while ((result = flock(fd_, LOCK_EX)) != 0 && errno == EINTR && !interrupted()) {
  }
  const int error = errno;
  waited_seconds_ +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (result != 0 && error != EINTR) return failed(error);
  return Held(result == 0 ? fd_ : -1);
}

MachineLock::Held MachineLock::failed(int error) {
  // A file system without flock (some network mounts): measure unlocked, and say so once.
  if (warning_.empty())
    warning_ = std::string("cannot lock the machine lock: ") + std::strerror(error) +
               "; concurrent ompbench runs would measure each other";
  close(fd_);
  fd_ = -1;
  return Held(-1);
}

MachineLock::Held::Held(Held&& other) noexcept : fd_(other.fd_) {
  other.fd_ = -1;
}

MachineLock::Held::~Held() {
  if (fd_ >= 0) flock(fd_, LOCK_UN);
}

}  // namespace ompscale::microbench

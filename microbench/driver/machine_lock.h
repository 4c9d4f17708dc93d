#pragma once
// One measurement at a time per machine: an advisory lock (flock) that an ompbench process holds
// while it measures (a worker's round of batches, the driver's canary probes) and releases in
// between. Several ompbench runs started at once on one machine then take turns round by round,
// interleaved, instead of measuring each other on shared cores.
//
// The lock file sits next to the canary store (canary_store.h), "<store>.<host>.lock": runs that
// share a store (by default, one user's) share the lock; the host name keeps a store on a network
// home from serialising runs on different machines. A disabled store ("none") disables the lock.

#include <string>

namespace ompscale::microbench {

class MachineLock {
 public:
  /// `path`: the lock file, created when missing; "" = no locking. A file that cannot be opened
  /// disables locking too, with the reason in warning().
  explicit MachineLock(const std::string& path);
  ~MachineLock();
  MachineLock(const MachineLock&) = delete;
  MachineLock& operator=(const MachineLock&) = delete;

  /// Holds the lock for its lifetime (when it could be taken).
  class Held {
   public:
    Held(Held&& other) noexcept;
    Held& operator=(Held&&) = delete;
    Held(const Held&) = delete;
    ~Held();
    /// False when locking is disabled or the wait was interrupted (SIGINT/SIGTERM).
    bool held() const { return fd_ >= 0; }

   private:
    friend class MachineLock;
    explicit Held(int fd) : fd_(fd) {}
    int fd_ = -1;
  };

  /// Waits until this process holds the lock, or until interrupted() (common/interrupt.h); not
  /// held at once when interrupted already. A lock that cannot be taken (no flock on the file
  /// system) disables locking, with the reason in warning().
  Held acquire();

  /// Seconds spent waiting for other processes so far.
  double waited_seconds() const { return waited_seconds_; }
  const std::string& warning() const { return warning_; }

 private:
  Held failed(int error);

  int fd_ = -1;
  double waited_seconds_ = 0;
  std::string warning_;
};

}  // namespace ompscale::microbench

#pragma once
// A test-and-test-and-set spin lock for the tool's slow paths (aggregating a full buffer, fork,
// finalize). Trivially destructible, so it still works when the runtime calls finalize after
// the tool library's static destructors ran; std::mutex would too on glibc, but does not say so.

#include <sched.h>
#include <time.h>

#include <atomic>
#include <cstdint>

namespace ompscale::regions::ompt {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

class SpinLock {
 public:
  bool try_lock() {
    return !locked_.load(std::memory_order_relaxed) &&
           !locked_.exchange(true, std::memory_order_acquire);
  }

  /// Spins, yielding now and then so an oversubscribed holder gets the core back.
  void lock() {
    for (std::uint64_t spin = 0; !try_lock(); ++spin) {
      if (spin % 64 == 63) {
        sched_yield();
      } else {
        cpu_relax();
      }
    }
  }

  /// lock() giving up after `seconds`; false when the lock was not taken.
  bool lock_within(double seconds) {
    timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (std::uint64_t spin = 0; !try_lock(); ++spin) {
      if (spin % 64 != 63) {
        cpu_relax();
        continue;
      }
      sched_yield();
      timespec now;
      clock_gettime(CLOCK_MONOTONIC, &now);
      const double waited = static_cast<double>(now.tv_sec - start.tv_sec) +
                            static_cast<double>(now.tv_nsec - start.tv_nsec) * 1e-9;
      if (waited > seconds) return false;
    }
    return true;
  }

  void unlock() { locked_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> locked_{false};
};

}  // namespace ompscale::regions::ompt

#pragma once
// Spin-waiting that stays correct when threads outnumber cores.
//
// Measurements spin on one cache line per direction (a release store by the writer, an acquire
// load with `pause` by the reader). When the waiter spins for long (the writer is not running,
// e.g. oversubscribed), it yields the CPU so the writer can run: no wait can hang for lack of a
// core. Waits that measure latency stay in the pause phase on a machine with enough cores.

#include <atomic>
#include <cstddef>
#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace ompscale::sync {

inline constexpr std::size_t kCacheLine = 64;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

/// Counts spins and yields after `pause_spins` of them (then every 64 spins). One spin is one
/// `pause`, 10 to 140 cycles depending on the core (about 20 ns on the 2-core test VM), so by
/// default a wait spins for a few hundred microseconds before it first yields. One Backoff per
/// wait.
class Backoff {
 public:
  explicit Backoff(std::uint32_t pause_spins = 1u << 14) : limit_(pause_spins) {}
  void spin();
  std::uint32_t spins() const { return spins_; }
  /// Whether the wait went past the pause phase (and has yielded, or is about to).
  bool past_pauses() const { return spins_ > limit_; }

 private:
  std::uint32_t limit_;
  std::uint32_t spins_ = 0;
};

/// Backoff for a sequence of waits of one thread, carrying over what the last wait learned. A wait
/// that had to go past its pauses means the other thread was not running (it shares this core, or
/// was descheduled), and pausing on only keeps it off the core: the next wait yields after
/// `short_pause_spins`. A wait that ends while still pausing restores `pause_spins`; one that ends
/// without spinning at all teaches nothing. On a machine with a core per thread every wait ends
/// while pausing, so latency-measuring waits keep the long pause phase; oversubscribed, a hand-off
/// costs microseconds instead of a full pause phase. Owned by one thread.
class AdaptiveBackoff {
 public:
  explicit AdaptiveBackoff(std::uint32_t pause_spins = 1u << 14,
                           std::uint32_t short_pause_spins = 1u << 8)
      : long_(pause_spins), short_(short_pause_spins) {}

  /// Spins until `flag` equals `expected`, with acquire ordering.
  template <typename T>
  void until_equal(const std::atomic<T>& flag, T expected) {
    Backoff backoff(yielded_ ? short_ : long_);
    while (flag.load(std::memory_order_acquire) != expected) backoff.spin();
    learn(backoff);
  }

  /// Spins until `flag` differs from `old`, with acquire ordering; returns the new value.
  template <typename T>
  T until_changed(const std::atomic<T>& flag, T old) {
    Backoff backoff(yielded_ ? short_ : long_);
    T value;
    while ((value = flag.load(std::memory_order_acquire)) == old) backoff.spin();
    learn(backoff);
    return value;
  }

 private:
  void learn(const Backoff& finished) {
    if (finished.spins() > 0) yielded_ = finished.past_pauses();
  }

  std::uint32_t long_;
  std::uint32_t short_;
  bool yielded_ = false;
};

/// One value alone on its cache line, so two of them never share a line (no false sharing).
template <typename T>
struct alignas(kCacheLine) PaddedAtomic {
  std::atomic<T> value{};
  char pad[sizeof(std::atomic<T>) < kCacheLine ? kCacheLine - sizeof(std::atomic<T>) : 1];
};

/// Spins (with Backoff) until `flag` equals `expected`, with acquire ordering.
template <typename T>
inline void spin_until_equal(const std::atomic<T>& flag, T expected) {
  Backoff backoff;
  while (flag.load(std::memory_order_acquire) != expected) backoff.spin();
}

}  // namespace ompscale::sync

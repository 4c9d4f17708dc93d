#pragma once
// Adaptive sampling, as ScalOMP (IWOMP 2019, section 4.4) describes it: the first executions of
// an event source are all measured, later ones sparsely, more sparsely the more often it repeats.
//
// Execution n (0-based) of a source is measured when n < always_first; past that, one in 2^k is
// measured with k = bit_width(n / always_first), capped at max_log2_period: each doubling of the
// count adds always_first / 2 measurements until the cap, then the rate stays 1 / 2^cap.
//
// Which executions are picked is decided by Fibonacci hashing of n (the Weyl sequence n * phi mod
// 1 falls below 2^-k for one n in 2^k, evenly spread), not by "every 2^k-th": a strided pick
// would alias with programs whose executions alternate between behaviours (every other time step
// doing more work, say). It needs no state beyond the counter and is deterministic.
//
// Used for parallel region instances (decided once at parallel begin, on a counter the team's
// masters share) and, through next_after(), for timing lock acquisitions inside measured
// instances (every acquisition is counted, a sample is timed; the counter is the thread's).

#include <algorithm>
#include <bit>
#include <cstdint>

namespace ompscale::regions::tool {

struct AdaptiveSampler {
  std::uint64_t always_first = 64;  // a power of two
  unsigned max_log2_period = 63;

  /// log2 of the sampling period for execution n: 0 while n < always_first. always_first is a
  /// power of two (or ~0 for "all"), so the division is a shift: this runs on every lock
  /// acquisition of a measured execution.
  constexpr unsigned log2_period(std::uint64_t n) const {
    if (n < always_first) return 0;
    const auto k = static_cast<unsigned>(std::bit_width(n >> std::countr_zero(always_first)));
    return std::min(k, max_log2_period);
  }

  /// The next execution to measure after measuring n, for per-thread counters where a
  /// countdown is cheaper than measure() on every event: all while n + 1 < always_first, then a
  /// gap of about one period, jittered (between half and one and a half periods) so that a
  /// program alternating between lock sites does not alias with it.
  constexpr std::uint64_t next_after(std::uint64_t n) const {
    const unsigned k = log2_period(n + 1);
    if (k == 0) return n + 1;
    const std::uint64_t period = 1ull << k;
    const std::uint64_t jitter = ((n + 1) * 0x9E3779B97F4A7C15ull) >> (64 - k);
    return n + period / 2 + jitter;
  }

  /// Whether execution n is measured.
  constexpr bool measure(std::uint64_t n) const {
    const unsigned k = log2_period(n);
    return k == 0 || ((n * 0x9E3779B97F4A7C15ull) >> (64 - k)) == 0;
  }
};

/// Parallel region instances: 64 measured, then 32 per doubling of the count (about 500 of a
/// million instances), no cap: a region repeated a million times costs ~500 measured instances.
inline constexpr AdaptiveSampler kRegionSampler{64, 63};

/// Lock acquisitions per thread and measured instance: 256 timed, then 128 per doubling, capped
/// at one in 256, so a thread taking millions of locks per second times ~0.4% of them (a timed
/// acquisition costs ~100 ns, a counted one a few ns).
inline constexpr AdaptiveSampler kLockSampler{256, 8};

/// Every execution measured (OMPSCAN_SAMPLING=all).
inline constexpr AdaptiveSampler kMeasureAll{~0ull, 0};

}  // namespace ompscale::regions::tool

#pragma once
// Sampling: which executions of a region are measured, and which lock acquisitions are timed.
//
// Parallel regions (RegionSampling): measured in full unless measuring costs more than a budget
// of the region's own time. Each execution is measured with probability 2^-k, with k chosen from
// what measuring costs (a fixed cost per thread of the team) against the region's mean
// execution time so far: a region whose executions take a hundred times the cost or more is
// measured in full; one of 2 us executions at a few hundred ns of cost is measured about one
// time in 32. The decision for execution n uses only past executions, and each measured
// execution carries its weight 2^k (record.h), so the profile's sums are Horvitz-Thompson
// estimates of the totals over all executions: unbiased whatever the executions' times do over
// the run (a warm-up, a slow phase). A count-based rule (the first 64 measured, then fewer and
// fewer, every one scaled by executions / measured) counted each early execution as many later
// ones.
//
// Unbiased is not precise: a total's relative standard error is about
// sqrt((2^k - 1) / n * E[x^2] / E[x]^2) after n executions, and executions whose times differ
// widely (LULESH's equation-of-state regions run once per material region, whose sizes differ
// tenfold) make E[x^2] / E[x]^2 large. But every execution's wall time is cheap to know (two
// clock reads on its master): the region's total is summed exactly, and the measured
// executions' sums are calibrated to it (SplitSums, the ratio estimator), so sampling estimates
// only how that time splits into work and the rest. That split's error depends on how far each
// execution's time not working departs from its average share, not on the executions' sizes, and
// k is bounded by a target precision of it: sparser sampling only as the executions seen so far
// make the split precise enough.
//
// Which executions are picked is decided by Fibonacci hashing of n (the Weyl sequence n * phi mod
// 1 falls below 2^-k for one n in 2^k, evenly spread), not by "every 2^k-th": a strided pick
// would alias with programs whose executions alternate between behaviours (every other time step
// doing more work, say). It needs no state beyond the counter and is deterministic.
//
// Lock acquisitions inside measured executions (AdaptiveSampler, per thread): every one is
// counted, a sample is timed: all of the first ones, later ones sparsely, more sparsely the more
// often the thread acquires (ScalOMP, IWOMP 2019, section 4.4), each timed one weighted by the
// acquisitions it stands for.

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

namespace ompscale::regions::ompt {

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

/// Lock acquisitions per thread and measured instance: 256 timed, then 128 per doubling, capped
/// at one in 256, so a thread taking millions of locks per second times ~0.4% of them (a timed
/// acquisition costs ~100 ns, a counted one a few ns).
inline constexpr AdaptiveSampler kLockSampler{256, 8};

/// Every acquisition timed (OMPSCAN_SAMPLING=all).
inline constexpr AdaptiveSampler kMeasureAll{~0ull, 0};

/// The split of a sampled region's time into work and idle time, from its measured executions
/// of weight w: each execution's wall time x (every execution's is known exactly) and its
/// threads' mean time not working y (forks, barrier waits that run no task, joins). The ratio
/// estimator of survey sampling (Cochran, Sampling Techniques, ch. 6): calibrated to the exact
/// total of x, the estimate of y's total departs from the truth only as far as y departs from
/// its average share of x, however widely the executions' sizes differ.
struct SplitSums {
  double idle = 0;                // Horvitz-Thompson estimate of y's total
  double wall = 0;                // and of x's
  double yy = 0, xy = 0, xx = 0;  // sums of w (w - 1) y^2, x y and x^2

  void add(std::uint64_t weight, double x, double y) {
    const double w = static_cast<double>(weight);
    const double pair = w * (w - 1);
    idle += w * y;
    wall += w * x;
    yy += pair * y * y;
    xy += pair * x * y;
    xx += pair * x * x;
  }

  /// The variance of y's total estimated as `factor` (x's exact total over its estimate) times
  /// its Horvitz-Thompson estimate: factor^2 * sum w (w - 1) (y - R x)^2, R = y's over x's.
  double variance(double factor) const {
    const double r = wall > 0 ? idle / wall : 0.0;
    const double residual = yy - 2 * r * xy + r * r * xx;
    return factor * factor * std::max(residual, 0.0);
  }
};

/// Execution n of a region is measured at sampling period 2^k.
constexpr bool measure_execution(std::uint64_t n, unsigned log2_period) {
  return log2_period == 0 || ((n * 0x9E3779B97F4A7C15ull) >> (64 - log2_period)) == 0;
}

struct RegionSampling {
  /// The first executions of every region are measured (weight 1): warm-up and the odd stalled
  /// early execution then count once, and the mean the period is chosen from is known.
  std::uint64_t always_first = 64;
  /// Measuring one execution costs about this much per thread of its team (instance, stamps,
  /// the team's barrier board, the records): a few hundred ns.
  double cost_ns_per_thread = 250;
  /// Measuring may cost this share of a region's own time.
  double budget = 0.01;
  /// The sparsest sampling: one execution in 2^16.
  unsigned max_log2_period = 16;
  /// The relative standard error of a region's estimated total time that sampling may cost
  /// (the 95% confidence interval is about twice as wide either side).
  double relative_error = 0.025;
  bool all = false;  ///< OMPSCAN_SAMPLING=all: every execution
  /// A split that never varied still leaves the period to the budget.
  static constexpr double kLeastResidual = 1e-9;

  /// k for a region whose executions take `mean_ns` on average with teams of `team` threads,
  /// after `executions` executions whose threads' mean time not working departs from its average
  /// share of their wall time by `residual_second_moment` (the departure's second moment over the
  /// squared mean wall time): the smallest k with cost * 2^-k <= budget * mean, but no larger
  /// than the precision target allows. 0 (all) before any is measured. Applies from execution
  /// always_first on.
  unsigned log2_period(double mean_ns, unsigned team, std::uint64_t executions,
                       double residual_second_moment) const {
    if (all || !(mean_ns > 0)) return 0;
    const double ratio = cost_ns_per_thread * std::max(team, 1u) / (budget * mean_ns);
    if (!(ratio > 1.0)) return 0;
    return std::min({ceil_log2(ratio), precise_log2_period(executions, residual_second_moment),
                     max_log2_period});
  }

  /// The largest k whose ratio estimate of the split after `executions` executions keeps its
  /// standard error within relative_error of the region's time: (2^k - 1) / n * m2 <=
  /// relative_error^2.
  unsigned precise_log2_period(std::uint64_t executions, double residual_second_moment) const {
    const double m2 = std::max(residual_second_moment, kLeastResidual);
    const double periods =
        1.0 + static_cast<double>(executions) * relative_error * relative_error / m2;
    return floor_log2(periods);
  }

  // Exact for the doubles these see (>= 1), without libm: this runs at the end of every measured
  // execution, where two log2 calls were a third of the tool's instructions in a region of one
  // thread.
  static unsigned floor_log2(double x) {
    if (!(x >= 1.0)) return 0;
    if (x >= 0x1p63) return 63;
    return static_cast<unsigned>(std::bit_width(static_cast<std::uint64_t>(x))) - 1;
  }
  static unsigned ceil_log2(double x) {
    const unsigned k = floor_log2(x);
    return k < 63 && x > static_cast<double>(1ull << k) ? k + 1 : k;
  }
};

}  // namespace ompscale::regions::ompt

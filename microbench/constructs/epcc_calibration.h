#pragma once
// The EPCC method's calibration and sample-validity arithmetic, apart from the clock and the
// kernels so tests can drive it with injected timings.

#include <functional>
#include <vector>

namespace ompscale::microbench::epcc {

/// Median of `values` (mean of the middle two for an even count); 0 when empty.
double median(std::vector<double> values);

/// EPCC getdelaylengthfromtime with the median fix: the delay length whose delay takes at least
/// `target_seconds`. `seconds_per_delay(length)` times a run of delays of that length and returns
/// the seconds per delay; each length is judged by the median of `timings` such runs, so one
/// disturbed run cannot end the search early. Lengths double up to half the target, then grow in
/// EPCC's steps (x1.1 + 1). 0 when target_seconds <= 0.
int calibrate_delay_length(const std::function<double(int length)>& seconds_per_delay,
                           double target_seconds, int timings);

/// EPCC getinnerreps, fixed: the inner repetition count that makes one test run last about
/// `target_seconds`. `run(inner)` runs the test with that count and returns its seconds.
/// First the probe size doubles until the shorter of two consecutive runs reaches a quarter of
/// the target (one preempted run cannot stop the growth); then `probes` runs of that size are
/// timed and the median seconds per repetition sets the count, so a preempted probe cannot
/// shrink it. The result is a positive multiple of `multiple`.
long calibrate_inner_reps(const std::function<double(long inner)>& run, double target_seconds,
                          int probes, long multiple);

/// One outer repetition as the validity rule sees it.
struct OuterRep {
  double reference_seconds = 0;  // per construct execution
  double test_seconds = 0;       // per construct execution
  /// Time the process's threads waited for a CPU, as a fraction of the repetition's duration.
  double cpu_wait_fraction = 0;
  /// The test's duration over the target test time.
  double test_to_target = 1;
};

/// A test or reference time more than this many times its batch median marks the outer
/// repetition as disturbed (e.g. preempted for a time slice, longer than a whole repetition).
inline constexpr double kDisturbedFactor = 3.0;
/// Threads waiting for a CPU longer than this fraction of a repetition mark it as disturbed:
/// on a quiet machine the waits are 0, with a rare few us; a 100 us stall in a 1 ms repetition
/// already skews a parallel region's overhead by ~10%.
inline constexpr double kMaxCpuWaitFraction = 0.01;
/// A test shorter than this fraction of the target ran with an inner count calibrated in a
/// slower phase: the per-call costs (the enclosing region's fork and join) are not amortised.
inline constexpr double kMinTestToTarget = 0.25;

/// For each outer repetition, whether it was disturbed and its overhead is unusable: its threads
/// waited for a CPU for more than kMaxCpuWaitFraction of it, its test lasted less than
/// kMinTestToTarget of the target, or its test or reference took more than kDisturbedFactor
/// times the batch median.
std::vector<bool> disturbed_reps(const std::vector<OuterRep>& reps);

}  // namespace ompscale::microbench::epcc

#pragma once
// The statistics of an A/B comparison of two runtime builds (ab_test.h): the builds were measured
// alternately, round by round, in one run, so each round pair saw one machine state and its log
// ratio new / old is one observation of the change. A pair whose two halves measured in different
// states (their canary round trips more than the state factor apart) compares states, not builds,
// and is left out. The change is the Hodges-Lehmann estimate of the pairs' log ratios (the median
// of their Walsh averages), with the distribution-free interval of Wilcoxon's signed-rank test at
// the family-wise significance (split over the kernels compared): a round disturbed by a
// preemption moves neither much, where it would widen a mean's t interval. The verdict "slower"
// needs the interval to exclude no change (the slowdown is real) and to reach beyond the
// practical threshold (it is not shown to be negligible).

#include <cstddef>
#include <span>
#include <string>

namespace ompscale::dashboard {

/// One round pair of one kernel: the median of each build's repetitions and the median canary
/// round trip it was measured with (0: unknown).
struct AbRound {
  double old_median = 0.0, new_median = 0.0;
  double old_canary_ns = 0.0, new_canary_ns = 0.0;
  bool old_first = true;  ///< which build this round measured first
};

struct AbEstimate {
  /// "slower", "faster" (the new build: the interval excludes no change and reaches beyond the
  /// threshold), "unchanged" (otherwise), "inconclusive" (fewer pairs in one machine state than
  /// the minimum, or than the significance needs).
  std::string verdict = "inconclusive";
  double change = 0.0;  ///< exp(Hodges-Lehmann log ratio) - 1 (NaN without pairs)
  double low = 0.0;     ///< its interval (NaN when too few pairs bound it)
  double high = 0.0;
  /// The smallest change detected 80% of the time at this noise (the pairs' robust deviation,
  /// 1.4826 x MAD, in ab_detectable_change).
  double detectable = 0.0;
  std::size_t pairs = 0;    ///< pairs used
  std::size_t dropped = 0;  ///< pairs left out (different machine states, a non-positive median)
};

struct AbStatisticsOptions {
  double significance = 0.01;  ///< two-sided, for this one kernel (already split over kernels)
  double threshold = 0.05;     ///< practical threshold: changes shown below it are "unchanged"
  /// Fewer usable pairs: "inconclusive" (never fewer than pairs_needed(significance)).
  std::size_t min_pairs = 5;
  double state_factor = 1.5;  ///< canaries further apart than this: different machine states
};

/// The fewest round pairs whose signed-rank interval can exclude no change at two-sided
/// `significance`: 2^-n <= significance / 2 (8 at 0.01, 13 at 0.01 split over 38 kernels).
std::size_t pairs_needed(double significance);

/// Whether a pair can be used: positive medians, canaries in one state (or unknown).
bool usable_pair(const AbRound& round, double state_factor);

AbEstimate estimate_ab(std::span<const AbRound> rounds, const AbStatisticsOptions& options);

/// The smallest relative change detected with probability `power` by `pairs` pairs of log-ratio
/// standard deviation `sd` at two-sided `significance`: exp((t(1 - a/2) + t(power)) sd / sqrt(n))
/// - 1, Student t with n - 1 degrees of freedom. NaN for fewer than two pairs.
double ab_detectable_change(double sd, std::size_t pairs, double significance, double power = 0.8);

}  // namespace ompscale::dashboard

#pragma once
// Night-to-night noise: how much a kernel's nightly median moves between runs of an unchanged
// runtime, learned from the history, and the smallest change that stands out of it.
//
// A run's log median is modelled as level + e with e ~ N(0, sigma^2) from run to run (the
// machine's state drifts between runs; see docs/ompbench.md, "What remains"). Consecutive runs of
// one level differ by d = e_i - e_(i-1), so each difference estimates sigma^2 as d^2 / 2 with one
// degree of freedom. Differences beyond 5 robust standard deviations (1.4826 median|d|) are real
// changes, not noise, and are left out. A kernel with a short history borrows strength from the
// kernels of its group (platform, runtime, method, metric): its variance is shrunk towards the
// group's, which counts as at most `prior_dof` degrees of freedom, as in moderated (empirical
// Bayes) t-tests. The smallest detectable change then comes from Student's t with the combined
// degrees of freedom, so a short history is honest about how little it knows.

#include <cstddef>
#include <span>

#include "dashboard/analysis/order_statistics.h"

namespace ompscale::dashboard {

struct NoiseEstimate {
  double variance = 0.0;  ///< of the nightly log level
  double dof = 0.0;       ///< degrees of freedom; 0: unknown
  bool known() const { return dof > 0; }
  double sigma() const;  ///< sqrt(variance), NaN when unknown
};

/// The estimate from absolute differences of consecutive nightly log levels of one level.
/// Differences beyond 5 robust standard deviations are left out as changes, unless
/// `keep_jumps` (when there is no history to tell a change from noise).
NoiseEstimate estimate_from_differences(std::span<const double> absolute_differences,
                                        bool keep_jumps = false);

/// Whether `difference` is a change rather than noise among `absolute_differences` (beyond 5
/// robust standard deviations): the rule estimate_from_differences() leaves such ones out by.
bool is_jump(double difference, std::span<const double> absolute_differences);

/// The bound beyond which a difference among `absolute_differences` is a jump: 5 robust standard
/// deviations (infinite when they are 0, or there are none). One median for many is_jump() calls.
double jump_bound(std::span<const double> absolute_differences);

/// estimate_from_differences() of every prefix of a sequence of absolute differences, one
/// difference added at a time in O(log n): a running median gives the robust scale, ranked sums
/// the differences within 5 robust standard deviations of it.
class PrefixNoise {
 public:
  /// `differences`: every difference that will be added (in any order).
  explicit PrefixNoise(std::span<const double> differences) : within_(differences) {}
  void add(double difference);
  std::size_t size() const { return median_.size(); }
  /// estimate_from_differences() of the differences added so far.
  NoiseEstimate estimate() const;
  /// The same with `keep_jumps`.
  NoiseEstimate estimate_keeping_jumps() const;

 private:
  RunningMedian median_;
  RankedSums within_;  // each difference weighted by its variance estimate, d^2 / 2
};

/// The kernel's estimate shrunk towards its group's: weights own.dof and min(group.dof,
/// prior_dof).
NoiseEstimate moderated(const NoiseEstimate& own, const NoiseEstimate& group,
                        double prior_dof = 10.0);

/// The smallest relative change of a new run's median against the mean level of `baseline_runs`
/// runs that exceeds the noise at the family-wise `significance` over `tests` comparisons
/// (Bonferroni): exp(t * sigma * sqrt(1 + 1 / baseline_runs)) - 1, t the two-sided Student-t
/// quantile of significance / tests with the estimate's degrees of freedom. NaN when unknown.
double detectable_change(const NoiseEstimate& noise, std::size_t baseline_runs, std::size_t tests,
                         double significance);

/// The resolution of measured values: the median gap between neighbouring distinct values (gaps
/// below 1e-9 of the largest value are rounding); 0 for fewer than two distinct values. Costs
/// near the clock's resolution come in steps (10 ns here), and a median that sits between two
/// steps flips from run to run by a step, so two runs' medians differ by up to two steps.
double resolution(std::span<const double> values);

/// The smallest relative change beyond such flips: more than two steps (2.5) of `resolution`
/// relative to `median` (0 when the resolution is 0).
double resolution_floor(double resolution, double median);

}  // namespace ompscale::dashboard

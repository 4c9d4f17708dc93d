#pragma once
// The Mann-Whitney U (Wilcoxon rank-sum) test: did one run's repetitions come from a distribution
// shifted against the history's? Rank based, so the heavy right tail of timing data (preemptions,
// interrupts) does not dominate it the way it dominates a t-test. Plus Holm's step-down
// correction, for the many kernels and thread counts tested at once.

#include <span>
#include <vector>

namespace ompscale::dashboard {

struct RankTest {
  double u = 0.0;        ///< U of the first sample: pairs (x, y) with x > y, ties counting 1/2
  double z = 0.0;        ///< standardised U (normal approximation, tie- and continuity-corrected)
  double p_value = 1.0;  ///< two-sided
  bool exact = false;    ///< p from the exact null distribution (small samples without ties)
};

/// Two-sided test of `x` against `y`. Exact for samples of at most 20 each without ties, else
/// the normal approximation with tie correction and continuity correction. Either sample empty:
/// p = 1.
RankTest mann_whitney(std::span<const double> x, std::span<const double> y);

/// Holm's adjusted p-values (each at most 1, monotone in the raw order), same order as `p`.
/// Rejecting where adjusted < alpha controls the family-wise error rate at alpha.
std::vector<double> holm_adjust(std::span<const double> p);

}  // namespace ompscale::dashboard

#pragma once
// Change points in a series of nightly values (one per run, oldest first): where did the level
// change, and did it change at once (a step) or gradually (a drift)?
//
// E-divisive means (Matteson and James 2014, with exponent 1, as Apache Otava uses it): the split
// of a segment that maximises the energy distance between its two sides is the candidate (all
// splits of a segment are scored in one O(n log n) pass); it is kept when a Welch t-test between
// the two sides rejects at `significance` and the level differs by more than `min_change`; both
// sides are then split again (binary segmentation). The t-test
// instead of E-divisive's permutation test makes the result deterministic and cheap, and gives
// p-values small enough to correct for thousands of series.
//
// Consecutive change points in the same direction with a trending or short segment between them
// are one drift, dated to the run where the rise begins (the bend of a broken-line fit).

#include <cstddef>
#include <span>
#include <vector>

namespace ompscale::dashboard {

struct ChangePointOptions {
  /// Smallest number of runs on each side of a change point.
  std::size_t min_segment = 3;
  /// Level of the t-test (the caller divides it by the number of series for a family-wise level).
  double significance = 0.01;
  /// Smallest change of level, as |log(after / before)|: changes below a practical threshold are
  /// not worth reporting even when real.
  double min_change = 0.0487901641694320;  // log(1.05)
};

struct ChangePoint {
  std::size_t index = 0;  ///< first run of the new level
  double before = 0.0;    ///< mean of the values of the segment before (same scale as the input)
  double after = 0.0;     ///< mean of the segment after
  double p_value = 1.0;
};

/// Change points of `values` (e.g. log medians), in index order.
std::vector<ChangePoint> e_divisive(std::span<const double> values,
                                    const ChangePointOptions& options = {});

/// The E-divisive statistic of splitting values[begin, end) before `split`, pair by pair from its
/// definition (O(n^2); for tests).
double energy_statistic(std::span<const double> values, std::size_t begin, std::size_t split,
                        std::size_t end);

/// The statistic of every split of values[begin, end) with at least `min_segment` values on each
/// side (element i: the split before begin + min_segment + i), as the search computes them: in
/// one pass of O(n log n), each value's distances to the others summed with a Fenwick tree.
std::vector<double> energy_statistics(std::span<const double> values, std::size_t begin,
                                      std::size_t end, std::size_t min_segment);

/// A level shift: one change point (a step) or several merged (a drift from `first` to `last`).
struct LevelShift {
  std::size_t first = 0;  ///< index of the run where the shift starts
  std::size_t last = 0;   ///< index of the run where it ends (== first for a step)
  double before = 0.0;    ///< level before `first`
  double after = 0.0;     ///< level from `last` on
  double p_value = 1.0;   ///< smallest p of its change points
  bool drift() const { return last > first; }
};

/// Groups change points into steps and drifts. Two change points of one direction are one drift
/// when the runs between them trend that way (Spearman's rho >= 0.5) or are fewer than
/// 3 * `min_segment` (too few to tell a level of their own from a noisy stretch of a ramp).
std::vector<LevelShift> level_shifts(std::span<const double> values,
                                     const std::vector<ChangePoint>& points,
                                     std::size_t min_segment = 3);

}  // namespace ompscale::dashboard

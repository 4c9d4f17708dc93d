#pragma once
// Order statistics kept up to date while values arrive, for the analyses that look at every
// prefix of a history (the noise floor each night was judged with, E-divisive's split
// candidates): a running median (two heaps) and counts and sums over the values at most a bound
// (a Fenwick tree over the ranks of values known in advance). Each update and query costs
// O(log n), so a pass over a history of n nights costs O(n log n) instead of a sort per night.

#include <cstddef>
#include <functional>
#include <queue>
#include <span>
#include <vector>

namespace ompscale::dashboard {

/// The median of the values added so far.
class RunningMedian {
 public:
  void add(double value);
  std::size_t size() const { return lower_.size() + upper_.size(); }
  /// The same value as stats::median() of the values added (the mean of the two middle ones, as
  /// `low + 0.5 * (high - low)`, for an even count); NaN when empty.
  double median() const;

 private:
  std::priority_queue<double> lower_;  // the smaller half (its largest on top), one more when odd
  std::priority_queue<double, std::vector<double>, std::greater<>> upper_;
};

/// A multiset of values drawn from a universe known in advance, each with a weight: how many
/// values lie at or below a bound, and what their weights sum to. The weights are summed exactly
/// (in fixed point, 2^-80 units in 128 bits; weights below 1e8 in magnitude), so a sum does not
/// depend on the tree's shape, which depends on the universe: the noise estimate of a night is the
/// same bits whether the history ends there or goes on (a stored analysis stays as stored until
/// something real changes).
class RankedSums {
 public:
  /// `universe`: every value that may be added (any order, repeats allowed).
  explicit RankedSums(std::span<const double> universe);

  /// Adds `value` (one of the universe) with `weight`; remove() takes one such value back out.
  void add(double value, double weight);
  void remove(double value, double weight);

  std::size_t count() const { return count_; }
  double weight() const { return inexact(weight_); }
  /// Values (and the sum of their weights) at or below `bound`.
  std::size_t count_at_most(double bound) const;
  double weight_at_most(double bound) const;

  /// The sum of |value - v| over the values v held, when each was added with itself as weight.
  double distance_sum(double value) const;

 private:
  __extension__ using Exact = __int128;
  std::size_t slots_at_most(double bound) const;  // ranks 1..k hold the values <= bound
  void update(double value, std::ptrdiff_t count, Exact weight);

  static Exact exact(double weight);
  static double inexact(Exact sum);

  std::vector<double> values_;  // the universe, sorted, distinct
  std::vector<std::ptrdiff_t> counts_;
  std::vector<Exact> weights_;  // Fenwick trees over ranks 1..values_.size()
  std::size_t count_ = 0;
  Exact weight_ = 0;
};

}  // namespace ompscale::dashboard

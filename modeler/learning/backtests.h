#pragma once
// Internal to the modeler: in-range backtests of an input. A kernel fitted on its smaller
// thread counts predicts its larger measured ones, as a user's prediction past the largest
// measured count would; pooled over the input's kernels they show how a way of modeling
// extrapolates on this machine and harness (docs/methods.md, "Learning from the input").

#include <cstddef>
#include <vector>

#include "modeler/core/kernel.h"

namespace ompscale::modeler {

/// One kernel's training thread counts and the larger ones they predict.
struct Backtest {
  std::size_t kernel = 0;         ///< index into Dataset::kernels
  Kernel training;                ///< the kernel's repetitions at its smaller thread counts
  std::vector<double> t;          ///< the larger thread counts, predicted
  std::vector<double> measured;   ///< their measured medians (robust to a wild repetition)
  std::vector<double> doublings;  ///< log2(t / largest training thread count)
  /// Trained on all but the kernel's largest thread count: the backtest closest to a prediction
  /// from the whole measured range.
  bool edge = false;
};

/// Which backtests an input gives. The defaults keep learning at a fraction of the fit's cost.
struct BacktestPlan {
  /// Kernels backtested at most, spread evenly over the input (every kernel when fewer).
  std::size_t max_kernels = 160;
  /// Training sets per kernel: the smallest half of the thread counts (at least
  /// `min_training`), and all but the largest.
  std::size_t min_training = 3;
};

/// The backtests of every kernel with more than `plan.min_training` thread counts and one
/// parameter (of at most `plan.max_kernels` of them, spread evenly). Held-out counts whose median
/// is 0 have no relative error and are left out.
std::vector<Backtest> make_backtests(const Dataset& data, const BacktestPlan& plan = {});

}  // namespace ompscale::modeler

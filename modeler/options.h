#pragma once
// Options of the modeler, with their defaults. Presets bundle them: the default preset is ours,
// ModelerOptions::extrap() reproduces Extra-P 4.2.5's default single-parameter modeler.

#include <optional>
#include <string>
#include <vector>

#include "modeler/hypothesis.h"
#include "platforms/thread_class.h"

namespace ompscale::modeler {

/// How the repetitions at one thread count become one value.
enum class Aggregation {
  kMean,
  kMedian,
  kMin,
  kMax,
  kTrimmedMean,  ///< drop the 25% best and 25% worst, average the rest (the paper's filter)
};

/// How a hypothesis wins.
enum class Selection {
  /// Ours: weighted fits against the noise seen across repetitions, lowest BIC wins; rivals of
  /// another growth class within the noise are reported (see docs/methods.md).
  kNoiseAware,
  kSmape,  ///< lowest cross-validated SMAPE (Extra-P)
  kRss,    ///< lowest cross-validated residual sum of squares
};

/// Loss function of the fit; robust losses down-weight outliers (fitted with Ceres).
enum class Loss { kLeastSquares, kHuber, kCauchy };

/// How kernels are split into thread-count classes before modeling.
enum class ClassMode {
  kNone,  ///< one model over all thread counts
  kList,  ///< one model per class in ModelerOptions::classes
  kAuto,  ///< try the partitions the classes offer; keep a split only when held-out error says so
};

/// "--budget 10us" (absolute, in `unit`) or "--budget 4x" (relative to the cost at the smallest
/// measured thread count).
struct BudgetSpec {
  double value = 0.0;
  bool relative = false;
  std::string unit;  ///< as written ("us", "ns", ...); empty means the data's unit
};

struct ModelerOptions {
  HypothesisSpace space = HypothesisSpace::paper();
  /// Add t^-i to a space without negative exponents for kernels whose values fall with t
  /// (strong scaling); the default preset only.
  bool negative_exponents_when_falling = true;
  /// When every aggregated value is positive (times, costs), leave out hypotheses that turn
  /// negative between the measured range and budget_search_limit: they predict negative costs
  /// when extrapolated. The default preset only.
  bool positive_models = true;
  Aggregation aggregation = Aggregation::kTrimmedMean;
  Selection selection = Selection::kNoiseAware;
  /// 0: leave-one-out cross-validation; k >= 2: k-fold.
  int folds = 0;
  /// Models with adjusted R^2 at or above this are valid (the paper's threshold).
  double valid_adjusted_r2 = 0.95;
  Loss loss = Loss::kLeastSquares;
  /// Refine exponents to continuous values with Ceres; kept only when held-out error improves.
  bool refine_exponents = false;
  /// Level of confidence and prediction intervals.
  double confidence = 0.90;
  /// A change of law that no measured thread count shows (threads that begin to share cores, a
  /// second socket, a bandwidth limit reached): the relative standard deviation it adds to a
  /// prediction per doubling of the distance beyond the measured range. It widens intervals
  /// outside the range, never the point. The default is calibrated on the public real sets
  /// (docs/methods.md, "Change of law beyond the range"); 0 trusts the measured law beyond the
  /// range (data whose law is known to hold there). Default preset only.
  double law_change_per_doubling = 0.08;
  /// Thread counts to predict at.
  std::vector<double> predict_at;
  std::optional<BudgetSpec> budget;
  /// Largest thread count the budget search looks at.
  double budget_search_limit = 1 << 20;
  ClassMode class_mode = ClassMode::kNone;
  /// Classes for kList and kAuto, in precedence order; thread counts in none form "other".
  std::vector<platforms::ThreadClass> classes;
  /// Kernels fitted in parallel by this many OpenMP threads; 0 = the runtime's default.
  int threads = 0;
  /// Name of the parameter in messages ("t", "threads", "x"); readers tell it via Dataset.
  std::string parameter = "t";
  /// Reproduce Extra-P 4.2.5's default modeler: the same terms, coefficients equal to 1e-9
  /// relative (summation order differs, so not bit for bit; see README, "Extra-P preset").
  bool extrap_compatible = false;

  /// The Extra-P 4.2.5 preset: 42 default building blocks, mean of repetitions, leave-one-out,
  /// SMAPE selection, Extra-P's constant and coefficient cleaning rules.
  static ModelerOptions extrap();
};

}  // namespace ompscale::modeler

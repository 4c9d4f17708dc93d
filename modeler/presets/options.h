#pragma once
// Public header. Options of the modeler, with their defaults. Presets bundle them (presets.h):
// the default preset is ours, ModelerOptions::extrap() reproduces Extra-P 4.2.5's default
// single-parameter modeler. validate() says what is wrong with a combination; every caller (the
// CLI, ompscan's report, the benches) uses it before fitting.

#include <optional>
#include <string>
#include <vector>

#include "modeler/core/boundaries.h"
#include "modeler/core/hypothesis.h"
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

/// How a kernel's points become its model: the single-parameter strategies, side by side in
/// modeler/selection/ (docs/methods.md, "Strategies").
enum class Strategy {
  /// Ours: weighted fits against the noise the repetitions show (and the deviations they share),
  /// lowest BIC wins, the plausible hypotheses are averaged; rivals of another growth class
  /// within the noise are reported.
  kNoiseAware,
  /// Extra-P's criterion: the hypothesis with the lowest held-out error (`held_out_error`) is
  /// the model, fitted with `weighting`; with our positivity and strong-scaling rules and
  /// prediction intervals.
  kCrossValidated,
  /// Extra-P 4.2.5's default modeler rule for rule (`--preset extrap`): no intervals.
  kExtrap,
};

/// The held-out error that ranks hypotheses in the cross-validated and Extra-P strategies.
enum class HeldOutError {
  kSmape,  ///< symmetric mean absolute percentage error (Extra-P)
  kRss,    ///< residual sum of squares
};

/// Which points a least-squares fit listens to most.
enum class Weighting {
  /// 1 / variance of each aggregated value: relative errors when the noise grows with the
  /// value, so small and large values weigh alike.
  kNoise,
  /// Every point alike (Extra-P): absolute errors, so the largest values weigh most; for a cost
  /// that grows, the top of the measured range, where an extrapolation starts.
  kUniform,
};

/// What the modeler may learn from the input itself before it fits any kernel
/// (modeler/learning/, docs/methods.md, "Learning from the input").
struct LearnFromInput {
  /// Choose the strategy, weighting and aggregation whose backtests (fits of each kernel's
  /// smaller thread counts predicting its larger ones) extrapolate best on this input.
  bool strategy = true;
  /// Calibrate law_change_per_doubling so that the backtests' intervals hold their level.
  bool law_change = true;
  /// With two parameters: choose between one law over both and a model per line along the first
  /// (ModelerOptions::model_each_line), by which predicts the lines' larger values better.
  bool lines = true;
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
  Strategy strategy = Strategy::kNoiseAware;
  /// Ranks hypotheses in the cross-validated and Extra-P strategies.
  HeldOutError held_out_error = HeldOutError::kSmape;
  /// Weights of the cross-validated strategy's fits (the noise-aware one weighs by the noise).
  Weighting weighting = Weighting::kNoise;
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
  /// Topology boundaries of the machine the data come from (core/boundaries.h); empty when the
  /// platform is unknown. A prediction past one that no measured thread count crosses is
  /// flagged (Prediction::boundaries).
  std::vector<TopologyBoundary> boundaries;
  /// The least change-of-law allowance per doubling of such a prediction: learning from the
  /// input sees only the measured range, so past an uncrossed boundary the interval allows at
  /// least the change the public real sets show across such boundaries. Default preset only.
  double law_change_past_boundary = 0.08;
  /// With two parameters: each measured value of the second parameter's line along the first is
  /// also modeled on its own (one parameter, these options), and predictions along a measured
  /// line come from its model; elsewhere from the law over both. Default: one law over both, as
  /// Extra-P; learning from the input chooses (LearnFromInput::lines).
  bool model_each_line = false;
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
  /// What fit_dataset's callers may learn from the input first (learning/learn_from_input.h);
  /// fitting one kernel never learns.
  LearnFromInput learn;

  /// The Extra-P 4.2.5 preset: 42 default building blocks, mean of repetitions, leave-one-out,
  /// SMAPE selection, Extra-P's constant and coefficient cleaning rules, nothing learnt.
  static ModelerOptions extrap();

  /// Why these options cannot be used, in one line that starts with the option's command-line
  /// name ("confidence 1.5: use a level between 0 and 1, e.g. 0.9"); empty when they can.
  std::string validate() const;
};

}  // namespace ompscale::modeler

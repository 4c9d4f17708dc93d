#pragma once
// Public header. What the modeler learns from an input before it models any kernel: which way
// of modeling extrapolates best on this input's machine and harness, and how much its laws
// change beyond the measured thread counts (docs/methods.md, "Learning from the input").
//
// A sweep holds dozens to thousands of kernels measured on one machine with one harness. One
// kernel's own backtest is too noisy to choose a law; pooled over the input's kernels it is not.
// Every kernel (or an even sample of them) is fitted on its smaller thread counts and predicts
// its larger measured ones, once per candidate way of modeling; the candidate whose predictions
// miss least becomes the input's, and the interval's allowance for a change of law is the
// smallest that holds the backtests' measurements at the intervals' level.

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "modeler/core/kernel.h"
#include "modeler/presets/options.h"

namespace ompscale::modeler {

/// One way of modeling that learning tries, with how its backtests went.
struct LearningCandidate {
  std::string name;  ///< "cross-validated, mean"
  Strategy strategy = Strategy::kNoiseAware;
  Weighting weighting = Weighting::kNoise;
  Aggregation aggregation = Aggregation::kTrimmedMean;
  /// Mean over the backtested kernels of each kernel's mean |log(predicted / measured)|.
  double loss = std::numeric_limits<double>::infinity();
  double median_error = std::numeric_limits<double>::quiet_NaN();  ///< relative, pooled
  double p90_error = std::numeric_limits<double>::quiet_NaN();     ///< relative, pooled
};

/// What learn_from_input found.
struct LearnedExtrapolation {
  bool strategy_learned = false;    ///< the options' strategy was replaced by the chosen one
  bool law_change_learned = false;  ///< law_change_per_doubling was calibrated
  bool law_change_tried = false;    ///< calibration was asked for (it may find too few backtests)
  std::string reason;               ///< why nothing was learned, when nothing was
  std::size_t kernels = 0;          ///< kernels backtested (lines, with several parameters)
  /// The input has several parameters: its kernels' lines along the first one were backtested,
  /// and what they teach models the two-parameter modeler's slices and its intervals.
  bool along_lines = false;
  std::size_t predictions = 0;                ///< held-out thread counts predicted
  std::vector<LearningCandidate> candidates;  ///< the options' own way first
  std::size_t chosen = 0;                     ///< index into candidates
  /// The allowance for a change of law per doubling the fits use: the smallest that holds the
  /// edge backtests at the intervals' level, or the prior (the options' own, learnt from public
  /// measurements) when too few backtests reach the top of the range.
  double law_change_per_doubling = 0.0;
  double law_change_prior = 0.0;  ///< the options' allowance before learning
  /// Share of the edge backtests' measurements inside their intervals with that allowance.
  double coverage = std::numeric_limits<double>::quiet_NaN();
  /// The chosen way's median log(predicted / measured) per doubling of the distance: above 0
  /// its extrapolations run high on this input, below 0 low.
  double overshoot_per_doubling = 0.0;
  /// The most common backtest, in words: "fits of 1..8 predicted 9..16 20% too high (median of
  /// 72 kernels)".
  std::string example;
  /// Two parameters (LearnFromInput::lines): the two ways of predicting along a measured line,
  /// scored on the same backtests of the lines: one law over both parameters, fitted on every
  /// line's smaller values of the first parameter (first), and each line modeled on its own
  /// with the chosen way (second). Empty when not compared.
  std::vector<LearningCandidate> line_ways;
  std::size_t line_way = 0;  ///< index into line_ways: 1 sets ModelerOptions::model_each_line

  /// A paragraph for a person: what was learnt, from how many backtests, what it means.
  std::string describe() const;
};

/// Learns from `data` what `options.learn` allows (nothing for one kernel too few: fewer than
/// kMinLearningKernels backtested kernels keep the options as they are, and `reason` says so).
/// With several parameters it learns from every kernel's lines along the first parameter
/// (multi_fit.h: lines_of_first), which the two-parameter modeler models as slices.
/// Fits run in parallel over `options.threads`.
LearnedExtrapolation learn_from_input(const Dataset& data, const ModelerOptions& options);
inline constexpr std::size_t kMinLearningKernels = 5;
/// Predictions of edge backtests (trained on all but the kernel's largest count) needed to
/// calibrate the change-of-law allowance at interval level `level`: 1 / (1 - level), 10 at 90%.
/// With fewer, no prediction is expected beyond the level's quantile, which is then the largest
/// one's neighbourhood, and the prior stays.
std::size_t min_calibration_predictions(double level);

/// `options` with what was learned in them.
ModelerOptions with_learned(ModelerOptions options, const LearnedExtrapolation& learned);

}  // namespace ompscale::modeler

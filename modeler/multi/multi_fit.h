#pragma once
// Models over several parameters for `modeler fit` (README, "Several parameters").
//
// A parameter measured at fewer than 3 values cannot show a law: it becomes part of the kernel
// key instead (one kernel per value, modeled over the remaining parameters) and a note says so.
// One parameter left: the single-parameter modeler as usual. Several: `--preset extrap`
// reproduces Extra-P 4.2.5's multi-parameter modeler (extrap_multi.h); the default preset uses
// the two-parameter modeler of multi_parameter.h (slices modeled with the default preset, terms
// combined, chosen by held-out SMAPE) and Extra-P's method for three or more parameters.

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "modeler/core/kernel.h"
#include "modeler/core/result.h"
#include "modeler/multi/extrap_multi.h"
#include "modeler/multi/multi_model.h"
#include "modeler/presets/options.h"

namespace ompscale::modeler {

/// Parameters measured at fewer than `min_values` distinct values (over the whole dataset) move
/// into the key, named after the parameter. Returns the notes that say which and why.
std::vector<std::string> fold_sparse_parameters(Dataset& dataset, std::size_t min_values = 3);

/// A prediction along the first parameter with the others at a measured combination.
struct MultiPrediction {
  std::vector<double> at;  ///< one value per parameter
  double value = 0.0;
  Interval interval;  ///< prediction interval at `level`; [value, value] without uncertainty
  double level = 0.9;
};

/// What a multi-parameter model does not know, for its intervals: the coefficients' covariance
/// (constant first, then the terms, row-major) and the spread of a new measurement relative to
/// the model, both from the relative residuals of the aggregated points, and an allowance for a
/// change of law per doubling beyond the measured range of the first parameter.
struct MultiUncertainty {
  std::vector<double> covariance;  ///< empty: no uncertainty known (degenerate intervals)
  double noise_sd_relative = 0.0;
  double dof = 1.0;  ///< points minus coefficients
  double law_change_per_doubling = 0.0;
};

/// A budget crossing along the first parameter with the others fixed.
struct MultiBudget {
  std::vector<double> others;  ///< the other parameters' values (parameter order, first omitted)
  BudgetCrossing crossing;
};

/// One measured line along the first parameter modeled on its own (ModelerOptions::
/// model_each_line): the single-parameter model of its measurements and its predictive
/// distribution.
struct LineModel {
  std::vector<double> others;  ///< the other parameters' values (parameter order, first omitted)
  Model model;
  FitStatistics stats;  ///< of the model over the line's own points
  PredictiveDistribution predictive;
};

struct MultiResult {
  std::size_t kernel = 0;  ///< index into Dataset::kernels
  /// The class of the first parameter's values the model covers ("all" without --classes).
  std::string thread_class = "all";
  /// With --classes auto, why the kernel was split or not (the same in each class's result).
  std::string class_decision;
  MultiModel model;
  FitStatistics stats;
  std::vector<MultiPoint> points;  ///< aggregated measurements
  std::vector<std::string> warnings;
  std::vector<MultiPrediction> predictions;
  std::vector<MultiBudget> budgets;
  MultiUncertainty uncertainty;
  /// With ModelerOptions::model_each_line: a model per measured line along the first parameter
  /// with enough values of it (kMinLineValues); predictions along such a line come from it.
  std::vector<LineModel> lines;
};

/// Values of the first parameter a line needs to be modeled on its own: as many as a backtest
/// of it needs (learning/backtests.h, BacktestPlan::min_training + 1), so that learning has seen
/// how such lines extrapolate. Shorter lines predict from the law over all parameters.
inline constexpr std::size_t kMinLineValues = 4;

/// The line model of `result` at the other parameters' values of `x` (x[0] is ignored), or null
/// when predictions there come from the law over all parameters.
const LineModel* line_at(const MultiResult& result, std::span<const double> x);

/// The uncertainty of `model` fitted to `points`: empty covariance when the points leave no
/// degree of freedom or a point or the model is not positive.
MultiUncertainty uncertainty_of(const MultiModel& model, const std::vector<MultiPoint>& points,
                                double law_change_per_doubling);

/// The predictive distribution along the first parameter with the others at `x` (x[0] is
/// ignored): the line's own (line_at), or the model along the line, its coefficients'
/// covariance, the measurement spread and the change-of-law allowance beyond the first
/// parameter's measured range.
PredictiveDistribution distribution_along_first(const MultiResult& result,
                                                std::span<const double> x);

/// Replaces the result's predictions and budgets: at each of `at` along the first parameter, and
/// the budget crossing along it (`absolute_budget` in the data's unit, or `budget` relative to
/// the smallest measured first-parameter value), for every measured combination of the others.
void predict_along_first(MultiResult& result, const std::vector<double>& at,
                         const std::optional<BudgetSpec>& budget, double absolute_budget,
                         double confidence, double search_limit);

/// The models as lines along the first parameter, one per measured combination of the others:
/// a single-parameter dataset whose key adds the other parameters, with each line's
/// measurements, and single-parameter results (the line's own model or the model along the line,
/// without uncertainty), so plots and single-parameter reports can draw them.
Dataset lines_along_first(const Dataset& dataset, const std::vector<MultiResult>& multi,
                          std::vector<KernelResult>& results);

/// Every kernel's lines along the first parameter, one single-parameter kernel per measured
/// combination of the others (its values added to the key, named after their parameters): what
/// learning from an input with several parameters backtests (learning/learn_from_input.h).
Dataset lines_of_first(const Dataset& dataset);

/// Where each line of lines_of_first(dataset) comes from, in the same order.
struct LineOrigin {
  std::size_t kernel = 0;      ///< index into Dataset::kernels
  std::vector<double> others;  ///< the other parameters' values
};
std::vector<LineOrigin> line_origins(const Dataset& dataset);

/// Models every kernel of a dataset with several parameters (Dataset::dimensions() >= 2).
/// ModelerOptions::predict_at and ::budget apply along the first parameter, at every measured
/// combination of the others. Thread-count classes (ModelerOptions::class_mode) apply to the
/// first parameter: a list gives one model per class over all parameters; `auto` splits a
/// kernel when the single-parameter decision splits every line along the first parameter (each
/// measured combination of the others with 8 or more values of it) into the same classes, and
/// keeps one model otherwise. Results come in kernel order, a kernel's classes together.
std::vector<MultiResult> fit_multi_dataset(const Dataset& dataset, const ModelerOptions& options);

}  // namespace ompscale::modeler

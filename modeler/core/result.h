#pragma once
// What the modeler produces for each kernel: one model per thread-count class, with its fit
// statistics, flags, uncertainty and predictions. Writers and the CLI consume these structs.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "modeler/core/model.h"

namespace ompscale::modeler {

/// Aggregated measurements at one parameter value.
struct PointSummary {
  double param = 0.0;
  double value = 0.0;  ///< aggregated repetitions (see ModelerOptions::aggregation)
  double min = 0.0;    ///< smallest repetition
  double max = 0.0;    ///< largest repetition
  double cv = 0.0;     ///< coefficient of variation of the repetitions
  std::size_t repetitions = 0;
};

struct FitStatistics {
  std::size_t points = 0;
  double rss = 0.0;  ///< residual sum of squares (for the extrap preset: held-out RSS)
  double tss = 0.0;  ///< total sum of squares around the mean
  double adjusted_r2 = 0.0;
  double smape = 0.0;     ///< symmetric mean absolute percentage error, in percent
  double cv_error = 0.0;  ///< cross-validated SMAPE (percent) of held-out points
};

struct Interval {
  double low = 0.0;
  double high = 0.0;
};

/// One model in a predictive mixture. Predictions average the components by weight; each
/// component contributes a Student-t distribution around its model's value.
struct PredictiveComponent {
  double weight = 1.0;
  Model model;
  /// Covariance of the coefficients (constant first, then terms in order), row-major p x p.
  std::vector<double> covariance;
  /// Residual degrees of freedom of the fit (points - coefficients), >= 1.
  double dof = 1.0;
  /// Standard deviation of a new aggregated measurement: sqrt(abs^2 + (rel * f(t))^2).
  double noise_sd_absolute = 0.0;
  double noise_sd_relative = 0.0;
  /// Model-form uncertainty outside the measured parameter range [range_low, range_high]: a
  /// relative standard deviation of `drift_sd_relative` times f(t) per doubling of the distance
  /// (log2(t / range_high) above the range, log2(range_low / t) below it).
  double drift_sd_relative = 0.0;
  /// The same for a change of law beyond the range that the measurements cannot show (a prior,
  /// ModelerOptions::law_change_per_doubling); the two add in quadrature.
  double law_change_sd_relative = 0.0;
  double range_low = 0.0;
  double range_high = 0.0;
  /// A cost that cannot be negative: the deviations are multiplicative (Student t of log(x)
  /// around log f(t), with the relative scale sd / f(t)), so the interval stays positive.
  bool positive = false;
};

/// Everything needed to predict with intervals, also after a round trip through models.json.
struct PredictiveDistribution {
  std::vector<PredictiveComponent> components;
};

struct Prediction {
  double param = 0.0;
  double value = 0.0;
  Interval interval;   ///< prediction interval at ModelerOptions::confidence
  double level = 0.9;  ///< confidence level of `interval`
  /// Topology boundaries between the measured thread counts and `param` that no measurement
  /// crosses (core/boundaries.h): the law may change there, and the data cannot show how.
  std::vector<std::string> boundaries = {};
};

/// The smallest thread count at which the predicted cost exceeds a budget.
struct BudgetCrossing {
  double budget = 0.0;                  ///< absolute budget in the data's unit
  std::optional<double> threads;        ///< none when the budget is never exceeded up to the limit
  std::optional<double> threads_early;  ///< crossing of the interval's upper bound (pessimistic)
  std::optional<double> threads_late;   ///< crossing of the interval's lower bound (optimistic)
  double search_limit = 0.0;            ///< largest thread count searched
  /// For a relative budget ("4x"): the measured point it is relative to (budget.h).
  std::optional<PointSummary> base = std::nullopt;
};

/// The model of one kernel for one thread-count class.
struct ClassModel {
  std::string thread_class = "all";  ///< "all" when the kernel is not split by class
  std::vector<PointSummary> points;
  Model model;
  FitStatistics stats;
  /// Confidence intervals of the coefficients (constant first, then terms).
  std::vector<Interval> coefficient_intervals;
  PredictiveDistribution predictive;
  GrowthClass growth = GrowthClass::kConstant;
  bool valid = false;            ///< adjusted R^2 >= ModelerOptions::valid_adjusted_r2
  bool worse_than_log = false;   ///< valid and the leading term grows faster than log t
  bool noise_dominates = false;  ///< noise exceeds the differences between competing hypotheses
  std::vector<std::string> warnings;
  std::vector<Prediction> predictions;
  std::optional<BudgetCrossing> budget;
  /// Why there is no model (fewer than 3 thread counts, values the fit cannot use); empty when
  /// `model` holds one. Without a model `points` still show what was measured, nothing is
  /// predicted and the statistics are NaN.
  std::string no_model;
  /// The kernel's resolution: the smallest step between two distinct repetitions of one thread
  /// count (0 when unknown). Relative budgets choose their base with it (budget.h).
  double resolution = 0.0;

  bool has_model() const { return no_model.empty(); }
};

struct KernelResult {
  std::size_t kernel = 0;  ///< index into Dataset::kernels
  std::vector<ClassModel> models;
  /// Why the kernel was (or was not) split into classes, for `--classes auto`.
  std::string class_decision;
};

}  // namespace ompscale::modeler

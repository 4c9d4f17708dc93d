#include "modeler/multi/multi_fit.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <omp.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <span>

#include "common/statistics.h"
#include "modeler/core/points.h"
#include "modeler/core/units.h"
#include "modeler/fit.h"
#include "modeler/multi/multi_parameter.h"
#include "modeler/prediction/predict.h"

namespace ompscale::modeler {

namespace {

std::set<double> distinct_values(const Dataset& dataset, std::size_t d) {
  std::set<double> values;
  for (const Kernel& k : dataset.kernels) {
    for (std::size_t i = 0; i < k.size(); ++i) values.insert(k.coordinate(i, d));
  }
  return values;
}

/// The kernel split by the values of the `folded` parameters, over the `kept` ones.
std::vector<Kernel> split_kernel(const Kernel& kernel, const std::vector<std::size_t>& kept,
                                 const std::vector<std::size_t>& folded) {
  std::map<std::vector<double>, std::vector<double>> flat_by_value;
  for (std::size_t i = 0; i < kernel.size(); ++i) {
    std::vector<double> value;
    for (std::size_t d : folded) value.push_back(kernel.coordinate(i, d));
    std::vector<double>& flat = flat_by_value[value];
    for (double v : kernel.repetitions(i)) {
      for (std::size_t d : kept) flat.push_back(kernel.coordinate(i, d));
      flat.push_back(v);
    }
  }
  std::vector<Kernel> out;
  for (const auto& [value, flat] : flat_by_value) {
    std::vector<std::string> key;
    for (std::string_view part : kernel.key_values()) key.emplace_back(part);
    for (double v : value) key.push_back(fmt::format("{:g}", v));
    out.push_back(Kernel::from_points(key, kept.size(), flat));
  }
  return out;
}

/// The kernel's samples along the first parameter, by the other parameters' values.
std::map<std::vector<double>, std::vector<Sample>> samples_by_line(const Kernel& kernel) {
  std::map<std::vector<double>, std::vector<Sample>> by_others;
  for (std::size_t i = 0; i < kernel.size(); ++i) {
    std::vector<double> others;
    for (std::size_t d = 1; d < kernel.dimensions(); ++d) others.push_back(kernel.coordinate(i, d));
    for (double v : kernel.repetitions(i))
      by_others[others].push_back({kernel.coordinate(i, 0), v});
  }
  return by_others;
}

/// Options for modeling one line inside a parallel loop over kernels: no predictions, budgets or
/// classes (the caller makes them), one thread.
ModelerOptions line_options(ModelerOptions options) {
  options.predict_at.clear();
  options.budget.reset();
  options.class_mode = ClassMode::kNone;
  options.threads = 1;
  return options;
}

/// ModelerOptions::model_each_line: each line with kMinLineValues or more values of the first
/// parameter, modeled on its own.
std::vector<LineModel> fit_each_line(const Kernel& kernel, const ModelerOptions& options) {
  const ModelerOptions single = line_options(options);
  std::vector<LineModel> lines;
  for (auto& [others, samples] : samples_by_line(kernel)) {
    const Kernel line = Kernel::from_samples({}, std::move(samples));
    if (line.size() < kMinLineValues) continue;
    ClassModel m = fit_kernel(line, single).models.front();
    if (!m.has_model()) continue;
    lines.push_back({others, std::move(m.model), m.stats, std::move(m.predictive)});
  }
  return lines;
}

std::vector<MultiPoint> aggregated(const Kernel& kernel, Aggregation aggregation) {
  const Points p = summarize(kernel, aggregation);  // values only; coordinates below
  std::vector<MultiPoint> points;
  for (std::size_t i = 0; i < kernel.size(); ++i) {
    MultiPoint point;
    for (std::size_t d = 0; d < kernel.dimensions(); ++d)
      point.x.push_back(kernel.coordinate(i, d));
    point.value = p.y[i];
    points.push_back(std::move(point));
  }
  return points;
}

MultiModel from_two_parameters(const TwoParameterModel& m) {
  MultiModel model;
  model.constant = m.constant;
  const Factor f{0, m.first};
  const Factor g{1, m.second};
  if (m.uses_first() && m.first_coefficient != 0.0)
    model.terms.push_back({m.first_coefficient, {f}});
  if (m.uses_second() && m.second_coefficient != 0.0) {
    model.terms.push_back({m.second_coefficient, {g}});
  }
  if (m.product_coefficient != 0.0) model.terms.push_back({m.product_coefficient, {f, g}});
  return model;
}

/// The default preset with two parameters: the two-parameter modeler.
MultiResult fit_default_two(const Kernel& kernel, const Dataset& dataset,
                            const ModelerOptions& options) {
  std::vector<Sample2> samples;
  for (std::size_t i = 0; i < kernel.size(); ++i) {
    for (double v : kernel.repetitions(i)) {
      samples.push_back({kernel.coordinate(i, 0), kernel.coordinate(i, 1), v});
    }
  }
  TwoParameterOptions two;
  two.first_name = dataset.parameters[0];
  two.second_name = dataset.parameters[1];
  two.first_options = options;
  two.first_options.predict_at.clear();
  two.first_options.budget.reset();
  two.second_options = two.first_options;
  two.aggregation = options.aggregation;
  const TwoParameterResult fitted = fit_two_parameters(samples, two);
  MultiResult result;
  result.model = from_two_parameters(fitted.model);
  result.stats = fitted.stats;
  result.warnings = fitted.warnings;
  return result;
}

/// The other parameters' measured combinations (parameter order, the first one omitted).
std::vector<std::vector<double>> other_values(const std::vector<MultiPoint>& points) {
  std::set<std::vector<double>> combinations;
  for (const MultiPoint& p : points) combinations.insert({p.x.begin() + 1, p.x.end()});
  return {combinations.begin(), combinations.end()};
}

/// Budgets along the first parameter, one per combination of the others. A relative budget is
/// relative to the smallest measured first-parameter value of that combination.
std::vector<MultiBudget> budgets_along_first(const MultiResult& r, double absolute_budget,
                                             const BudgetSpec& spec, double confidence,
                                             double search_limit) {
  std::vector<MultiBudget> out;
  for (const std::vector<double>& others : other_values(r.points)) {
    const MultiPoint* base = nullptr;
    for (const MultiPoint& p : r.points) {
      if (std::equal(others.begin(), others.end(), p.x.begin() + 1) &&
          (base == nullptr || p.x[0] < base->x[0])) {
        base = &p;
      }
    }
    std::vector<double> x = {base->x[0]};
    x.insert(x.end(), others.begin(), others.end());
    const PredictiveDistribution distribution = distribution_along_first(r, x);
    const double budget = spec.relative ? spec.value * base->value : absolute_budget;
    out.push_back(
        {others, find_budget_crossing(distribution, budget, confidence, base->x[0], search_limit)});
  }
  return out;
}

double budget_in_kernel_unit(const Dataset& dataset, const Kernel& kernel, const BudgetSpec& b) {
  if (b.relative || b.unit.empty()) return b.value;
  const auto it = std::find(dataset.key_columns.begin(), dataset.key_columns.end(), "unit");
  if (it == dataset.key_columns.end()) return b.value;
  return convert_time(b.value, b.unit,
                      kernel.key_value(static_cast<std::size_t>(it - dataset.key_columns.begin())));
}

MultiResult fit_one(const Dataset& dataset, std::size_t k, const Kernel& kernel,
                    const ModelerOptions& options, double budget) {
  const std::vector<MultiPoint> points = aggregated(kernel, options.aggregation);
  MultiResult result;
  if (options.strategy != Strategy::kExtrap && kernel.dimensions() == 2) {
    result = fit_default_two(kernel, dataset, options);
  } else {
    const ModelerOptions lines =
        options.strategy == Strategy::kExtrap ? options : ModelerOptions::extrap();
    const MultiFit fit = fit_extrap_multi(points, lines);
    result.model = fit.model;
    result.stats = fit.stats;
    if (options.strategy != Strategy::kExtrap) {
      result.warnings.push_back(
          "three or more parameters: modeled with Extra-P's multi-parameter method (the default "
          "preset's own method takes two)");
    }
  }
  result.kernel = k;
  result.points = points;
  if (options.strategy != Strategy::kExtrap)  // Extra-P gives no intervals
    result.uncertainty = uncertainty_of(result.model, points, options.law_change_per_doubling);
  if (options.model_each_line && options.strategy != Strategy::kExtrap && kernel.dimensions() == 2)
    result.lines = fit_each_line(kernel, options);
  predict_along_first(result, options.predict_at, options.budget, budget, options.confidence,
                      options.budget_search_limit);
  return result;
}

// A dataset of lines along the first parameter of `dataset`, without kernels yet: the other
// parameters join the key.
Dataset no_lines_yet(const Dataset& dataset) {
  const std::vector<std::string> names = dataset.parameter_names();
  Dataset lines;
  lines.parameter = names.front();
  lines.key_columns = dataset.key_columns;
  lines.key_columns.insert(lines.key_columns.end(), names.begin() + 1, names.end());
  lines.sources = dataset.sources;
  return lines;
}

// The key of `kernel`'s line at the other parameters' values `others`.
std::vector<std::string> line_key(const Kernel& kernel, const std::vector<double>& others) {
  std::vector<std::string> key;
  for (std::string_view part : kernel.key_values()) key.emplace_back(part);
  for (double v : others) key.push_back(fmt::format("{:g}", v));
  return key;
}

}  // namespace

MultiUncertainty uncertainty_of(const MultiModel& model, const std::vector<MultiPoint>& points,
                                double law_change_per_doubling) {
  MultiUncertainty u;
  u.law_change_per_doubling = law_change_per_doubling;
  const std::size_t n = points.size(), p = model.terms.size() + 1;
  if (n <= p) return u;
  // Relative residuals: a cost's spread grows with the cost, so a new measurement's deviation
  // is s * f(x); weights 1 / f^2 make s^2 (X^T W X)^-1 the coefficients' covariance.
  Eigen::MatrixXd design(n, p);
  Eigen::VectorXd weights(n);
  double squares = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double f = model.evaluate(points[i].x), y = points[i].value;
    if (!(f > 0.0 && y > 0.0 && std::isfinite(f) && std::isfinite(y))) return u;
    design(static_cast<Eigen::Index>(i), 0) = 1.0;
    for (std::size_t k = 0; k + 1 < p; ++k)
      design(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(k + 1)) =
          model.terms[k].shape_at(points[i].x);
    weights(static_cast<Eigen::Index>(i)) = 1.0 / (f * f);
    squares += (y - f) * (y - f) / (f * f);
  }
  const double variance = squares / static_cast<double>(n - p);
  const Eigen::MatrixXd normal = design.transpose() * weights.asDiagonal() * design;
  const Eigen::FullPivLU<Eigen::MatrixXd> lu(normal);
  if (!lu.isInvertible()) return u;
  const Eigen::MatrixXd covariance = variance * lu.inverse();
  if (!covariance.allFinite()) return u;
  u.covariance.resize(p * p);
  for (std::size_t i = 0; i < p; ++i) {
    for (std::size_t j = 0; j < p; ++j)
      u.covariance[i * p + j] =
          covariance(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j));
  }
  u.noise_sd_relative = std::sqrt(variance);
  u.dof = static_cast<double>(n - p);
  return u;
}

const LineModel* line_at(const MultiResult& result, std::span<const double> x) {
  for (const LineModel& line : result.lines) {
    if (line.others.size() + 1 == x.size() &&
        std::equal(line.others.begin(), line.others.end(), x.begin() + 1))
      return &line;
  }
  return nullptr;
}

PredictiveDistribution distribution_along_first(const MultiResult& result,
                                                std::span<const double> x) {
  if (const LineModel* line = line_at(result, x)) return line->predictive;
  // One term along the line per term of the model (a term without the first parameter is
  // constant along it: shape t^0), so the line's coefficients are the model's, each scaled by
  // its other factors at x, and their covariance scales alike.
  PredictiveComponent c;
  c.model.constant = result.model.constant;
  std::vector<double> scale = {1.0};
  for (const MultiTerm& term : result.model.terms) {
    Term line;
    double others = 1.0;
    for (const Factor& f : term.factors) {
      if (f.parameter == 0) {
        line.shape = f.shape;
      } else {
        others *= f.shape.evaluate(x[f.parameter]);
      }
    }
    line.coefficient = term.coefficient * others;
    c.model.terms.push_back(line);
    scale.push_back(others);
  }
  const MultiUncertainty& u = result.uncertainty;
  const std::size_t p = scale.size();
  c.covariance.assign(p * p, 0.0);
  if (u.covariance.size() == p * p) {
    for (std::size_t i = 0; i < p; ++i) {
      for (std::size_t j = 0; j < p; ++j)
        c.covariance[i * p + j] = scale[i] * scale[j] * u.covariance[i * p + j];
    }
    c.noise_sd_relative = u.noise_sd_relative;
    c.dof = u.dof;
    c.law_change_sd_relative = u.law_change_per_doubling;
    c.positive = true;
  }
  for (const MultiPoint& point : result.points) {
    c.range_low = c.range_low == 0.0 ? point.x[0] : std::min(c.range_low, point.x[0]);
    c.range_high = std::max(c.range_high, point.x[0]);
  }
  PredictiveDistribution distribution;
  distribution.components.push_back(std::move(c));
  return distribution;
}

void predict_along_first(MultiResult& result, const std::vector<double>& at,
                         const std::optional<BudgetSpec>& budget, double absolute_budget,
                         double confidence, double search_limit) {
  result.predictions.clear();
  for (const std::vector<double>& others : other_values(result.points)) {
    for (double t : at) {
      std::vector<double> x = {t};
      x.insert(x.end(), others.begin(), others.end());
      const Prediction p = predict(distribution_along_first(result, x), t, confidence);
      const double value = line_at(result, x) != nullptr ? p.value : result.model.evaluate(x);
      result.predictions.push_back({x, value, p.interval, p.level});
    }
  }
  result.budgets.clear();
  if (budget) {
    result.budgets =
        budgets_along_first(result, absolute_budget, *budget, confidence, search_limit);
  }
}

std::vector<std::string> fold_sparse_parameters(Dataset& dataset, std::size_t min_values) {
  std::vector<std::string> notes;
  if (dataset.dimensions() < 2) return notes;
  const std::vector<std::string> names = dataset.parameter_names();
  std::vector<std::size_t> kept, folded;
  std::vector<std::set<double>> values;
  std::size_t richest = 0;
  for (std::size_t d = 0; d < names.size(); ++d) {
    values.push_back(distinct_values(dataset, d));
    if (values[d].size() > values[richest].size()) richest = d;
  }
  for (std::size_t d = 0; d < names.size(); ++d) {
    (values[d].size() < min_values && d != richest ? folded : kept).push_back(d);
  }
  if (folded.empty()) return notes;
  std::vector<std::string> kept_names;
  for (std::size_t d : kept) kept_names.push_back(names[d]);
  for (std::size_t d : folded) {
    notes.push_back(fmt::format(
        "{} was measured at {} value(s) ({}), too few to show a law (3 or more): one model over "
        "{} per value of {}",
        names[d], values[d].size(), fmt::join(values[d], ", "), fmt::join(kept_names, " and "),
        names[d]));
  }
  std::vector<Kernel> kernels;
  for (const Kernel& kernel : dataset.kernels) {
    for (Kernel& part : split_kernel(kernel, kept, folded)) kernels.push_back(std::move(part));
  }
  dataset.kernels = std::move(kernels);
  for (std::size_t d : folded) dataset.key_columns.push_back(names[d]);
  dataset.parameter = kept_names.front();
  dataset.parameters = kept_names.size() > 1 ? kept_names : std::vector<std::string>{};
  return notes;
}

Dataset lines_of_first(const Dataset& dataset) {
  Dataset lines = no_lines_yet(dataset);
  for (const Kernel& kernel : dataset.kernels) {
    for (auto& [others, samples] : samples_by_line(kernel))
      lines.kernels.push_back(Kernel::from_samples(line_key(kernel, others), std::move(samples)));
  }
  return lines;
}

std::vector<LineOrigin> line_origins(const Dataset& dataset) {
  std::vector<LineOrigin> origins;
  for (std::size_t k = 0; k < dataset.kernels.size(); ++k) {
    for (const auto& [others, samples] : samples_by_line(dataset.kernels[k]))
      origins.push_back({k, others});
  }
  return origins;
}

Dataset lines_along_first(const Dataset& dataset, const std::vector<MultiResult>& multi,
                          std::vector<KernelResult>& results) {
  Dataset lines = no_lines_yet(dataset);
  for (const MultiResult& r : multi) {
    const Kernel& kernel = dataset.kernels.at(r.kernel);
    for (const std::vector<double>& others : other_values(r.points)) {
      std::vector<Sample> samples;
      for (std::size_t i = 0; i < kernel.size(); ++i) {
        // The line's points this result (its class, with --classes) was fitted on.
        const bool on_line =
            std::any_of(r.points.begin(), r.points.end(), [&](const MultiPoint& p) {
              for (std::size_t d = 0; d < kernel.dimensions(); ++d) {
                if (p.x[d] != kernel.coordinate(i, d)) return false;
              }
              return std::equal(others.begin(), others.end(), p.x.begin() + 1);
            });
        if (!on_line) continue;
        for (double v : kernel.repetitions(i)) samples.push_back({kernel.coordinate(i, 0), v});
      }
      lines.kernels.push_back(Kernel::from_samples(line_key(kernel, others), std::move(samples)));
      std::vector<double> x = {lines.kernels.back().param(0)};
      x.insert(x.end(), others.begin(), others.end());
      ClassModel m;
      m.thread_class = r.thread_class;
      const LineModel* own = line_at(r, x);
      m.model = own != nullptr ? own->model : r.model.along(0, x);
      m.points = summarize(lines.kernels.back(), Aggregation::kTrimmedMean).summary;
      m.growth = m.model.growth();
      m.stats = own != nullptr ? own->stats : r.stats;
      PredictiveComponent only;
      only.model = m.model;
      m.predictive.components.push_back(std::move(only));
      KernelResult line;
      line.kernel = lines.kernels.size() - 1;
      line.models.push_back(std::move(m));
      results.push_back(std::move(line));
    }
  }
  return lines;
}

namespace {

/// The class of each point's first parameter value ("other" when no class holds it).
std::vector<std::string> class_of_points(const Kernel& kernel,
                                         const std::vector<platforms::ThreadClass>& classes) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < kernel.size(); ++i) {
    const double t = kernel.coordinate(i, 0);
    std::optional<std::string> name;
    if (t == std::round(t) && t >= 1.0 && t <= std::numeric_limits<int>::max())
      name = platforms::classify(static_cast<int>(t), classes);
    names.push_back(name.value_or("other"));
  }
  return names;
}

/// The kernel's lines along the first parameter (one per combination of the others).
std::vector<Kernel> lines_of(const Kernel& kernel) {
  std::vector<Kernel> lines;
  for (auto& [others, samples] : samples_by_line(kernel))
    lines.push_back(Kernel::from_samples({}, std::move(samples)));
  return lines;
}

struct ClassChoice {
  std::vector<std::string> classes;  ///< empty: one model
  std::string decision;
};

/// `--classes auto` with several parameters: the single-parameter decision on every line along
/// the first parameter that has enough values of it; a split only when all of them agree.
ClassChoice choose_classes(const Kernel& kernel, const ModelerOptions& options,
                           const std::string& first_name) {
  constexpr std::size_t kLineValues = 8;  // two classes of 4, as a single-parameter split needs
  ModelerOptions single = line_options(options);
  single.class_mode = options.class_mode;
  std::map<std::vector<std::string>, std::size_t> partitions;
  std::size_t judged = 0, lines = 0;
  for (const Kernel& line : lines_of(kernel)) {
    ++lines;
    if (line.size() < kLineValues) continue;
    ++judged;
    std::vector<std::string> names;
    for (const ClassModel& m : fit_kernel(line, single).models) names.push_back(m.thread_class);
    if (names.size() < 2) names.clear();
    ++partitions[names];
  }
  ClassChoice choice;
  if (judged == 0) {
    choice.decision = fmt::format(
        "one model: no line along {} has {} or more values of it to judge a class split",
        first_name, kLineValues);
  } else if (partitions.size() == 1 && !partitions.begin()->first.empty()) {
    choice.classes = partitions.begin()->first;
    choice.decision = fmt::format(
        "split into {}: each of the {} line(s) along {} with {} or more values splits so",
        fmt::join(choice.classes, " | "), judged, first_name, kLineValues);
  } else if (partitions.size() == 1) {
    choice.decision = fmt::format(
        "one model: each of the {} line(s) along {} with {} or more values keeps one model", judged,
        first_name, kLineValues);
  } else {
    const std::size_t whole = partitions.count({}) > 0 ? partitions.at({}) : 0;
    choice.decision = fmt::format(
        "one model: the lines along {} disagree ({} of {} with {} or more values keep one model, "
        "the others split)",
        first_name, whole, judged, kLineValues);
  }
  return choice;
}

/// One kernel's results: one, or one per class of the first parameter.
std::vector<MultiResult> fit_kernel_classes(const Dataset& dataset, std::size_t k,
                                            const ModelerOptions& options, double budget) {
  const Kernel& kernel = dataset.kernels[k];
  std::vector<std::string> classes;
  std::string decision;
  const std::vector<std::string> class_of = class_of_points(kernel, options.classes);
  if (options.class_mode == ClassMode::kList) {
    for (const std::string& name : class_of) {
      if (std::find(classes.begin(), classes.end(), name) == classes.end()) classes.push_back(name);
    }
  } else if (options.class_mode == ClassMode::kAuto) {
    ClassChoice choice = choose_classes(kernel, options, dataset.parameter_names().front());
    classes = std::move(choice.classes);
    decision = std::move(choice.decision);
  }
  std::vector<MultiResult> out;
  if (classes.size() < 2) {
    out.push_back(fit_one(dataset, k, kernel, options, budget));
  } else {
    for (const std::string& name : classes) {
      out.push_back(fit_one(dataset, k,
                            kernel.points_where([&](std::size_t i) { return class_of[i] == name; }),
                            options, budget));
      out.back().thread_class = name;
    }
  }
  for (MultiResult& r : out) r.class_decision = decision;
  return out;
}

}  // namespace

std::vector<MultiResult> fit_multi_dataset(const Dataset& dataset, const ModelerOptions& options) {
  // Budgets are converted to each kernel's unit first: errors must not escape the parallel loop.
  std::vector<double> budgets(dataset.kernels.size(), 0.0);
  if (options.budget) {
    for (std::size_t k = 0; k < dataset.kernels.size(); ++k) {
      budgets[k] = budget_in_kernel_unit(dataset, dataset.kernels[k], *options.budget);
    }
  }
  std::vector<std::vector<MultiResult>> per_kernel(dataset.kernels.size());
  const int threads = options.threads > 0 ? options.threads : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic, 4) num_threads(threads)
  for (std::ptrdiff_t k = 0; k < static_cast<std::ptrdiff_t>(dataset.kernels.size()); ++k) {
    const auto i = static_cast<std::size_t>(k);
    per_kernel[i] = fit_kernel_classes(dataset, i, options, budgets[i]);
  }
  std::vector<MultiResult> results;
  for (auto& kernel_results : per_kernel) {
    for (MultiResult& r : kernel_results) results.push_back(std::move(r));
  }
  return results;
}

}  // namespace ompscale::modeler

#include "modeler/multi/multi_parameter.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "common/statistics.h"
#include "modeler/core/kernel.h"
#include "modeler/core/points.h"
#include "modeler/fit.h"
#include "modeler/numerics/least_squares.h"

namespace ompscale::modeler {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Point {
  double x1;
  double x2;
  double y;
};

// Which columns besides the constant a combination has: f, g, f g.
struct Columns {
  bool f, g, fg;
};

Columns columns_of(Combination c) {
  switch (c) {
    case Combination::kConstant:
      return {false, false, false};
    case Combination::kFirstOnly:
      return {true, false, false};
    case Combination::kSecondOnly:
      return {false, true, false};
    case Combination::kMultiplicative:
      return {false, false, true};
    case Combination::kAdditive:
      return {true, true, false};
    case Combination::kProductPlusFirst:
      return {true, false, true};
    case Combination::kProductPlusSecond:
      return {false, true, true};
    case Combination::kFull:
      return {true, true, true};
  }
  return {false, false, false};
}

std::string shape_text(const TermShape& shape, std::string_view name) {
  std::string out;
  if (shape.exponent != 0.0) out = fmt::format("{}^({})", name, format_exponent(shape.exponent));
  if (shape.log_exponent != 0) {
    if (!out.empty()) out += " * ";
    out += fmt::format("log2({})^({})", name, shape.log_exponent);
  }
  return out;
}

std::vector<Point> aggregate_points(std::span<const Sample2> samples, Aggregation aggregation) {
  std::map<std::pair<double, double>, std::vector<double>> grouped;
  for (const Sample2& s : samples) grouped[{s.first, s.second}].push_back(s.value);
  std::vector<Point> points;
  for (const auto& [at, values] : grouped) {
    // One point's repetitions summarised the way the single-parameter modeler does it.
    std::vector<Sample> reps;
    for (double v : values) reps.push_back({at.first, v});
    const Kernel k = Kernel::from_samples({""}, std::move(reps));
    points.push_back({at.first, at.second, summarize(k, aggregation).y.front()});
  }
  return points;
}

// The slices over parameter `which` (0: first) and their models.
std::vector<SliceModel> model_slices(std::span<const Sample2> samples, int which,
                                     const TwoParameterOptions& options) {
  std::map<double, std::vector<Sample>> by_other;
  for (const Sample2& s : samples) {
    const double own = which == 0 ? s.first : s.second;
    const double other = which == 0 ? s.second : s.first;
    by_other[other].push_back({own, s.value});
  }
  ModelerOptions o = which == 0 ? options.first_options : options.second_options;
  o.aggregation = options.aggregation;
  o.parameter = which == 0 ? options.first_name : options.second_name;
  o.predict_at.clear();
  o.budget.reset();
  o.class_mode = ClassMode::kNone;
  std::vector<SliceModel> out;
  for (auto& [other, slice] : by_other) {
    const Kernel kernel = Kernel::from_samples({""}, std::move(slice));
    if (kernel.size() < options.min_slice_points) continue;
    const KernelResult r = fit_kernel(kernel, o);
    if (r.models.empty() || !r.models.front().has_model()) continue;
    out.push_back({which, other, r.models.front().model});
  }
  return out;
}

// Distinct leading terms of the slice models over one parameter, most often proposed first.
std::vector<TermShape> proposals(const std::vector<SliceModel>& slices, int which) {
  std::vector<std::pair<TermShape, int>> counted;
  for (const SliceModel& s : slices) {
    if (s.parameter != which) continue;
    const Term* lead = s.model.leading_term();
    if (lead == nullptr) continue;
    auto it = std::find_if(counted.begin(), counted.end(),
                           [&](const auto& e) { return e.first == lead->shape; });
    if (it == counted.end()) {
      counted.push_back({lead->shape, 1});
    } else {
      ++it->second;
    }
  }
  std::stable_sort(counted.begin(), counted.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<TermShape> out;
  for (const auto& [shape, count] : counted) out.push_back(shape);
  return out;
}

struct Fitted {
  TwoParameterCandidate candidate;
  double rss = kInf;
  double smape = kInf;
  double cv_standard_error = kInf;  ///< of the mean of the held-out SMAPE terms
  std::size_t coefficients = 0;
};

Fitted fit_hypothesis(const std::vector<Point>& points, const std::vector<double>& weights,
                      Combination combination, const TermShape& f, const TermShape& g,
                      const TwoParameterOptions& options) {
  Fitted out;
  out.candidate.model.combination = combination;
  out.candidate.model.first = f;
  out.candidate.model.second = g;
  const Columns cols = columns_of(combination);
  const auto n = static_cast<Eigen::Index>(points.size());
  const auto k = static_cast<Eigen::Index>(1 + cols.f + cols.g + cols.fg);
  out.coefficients = static_cast<std::size_t>(k);
  if (n <= k) return out;  // nothing left to judge it by
  Eigen::MatrixXd x(n, k);
  std::vector<double> y;
  for (Eigen::Index i = 0; i < n; ++i) {
    const Point& p = points[static_cast<std::size_t>(i)];
    const double fv = f.evaluate(p.x1);
    const double gv = g.evaluate(p.x2);
    Eigen::Index c = 0;
    x(i, c++) = 1.0;
    if (cols.f) x(i, c++) = fv;
    if (cols.g) x(i, c++) = gv;
    if (cols.fg) x(i, c++) = fv * gv;
    y.push_back(p.y);
  }
  const LinearFit fit = fit_least_squares(x, y, weights);
  if (!fit.ok) return out;
  TwoParameterModel& m = out.candidate.model;
  Eigen::Index c = 0;
  m.constant = fit.coefficients(c++);
  if (cols.f) m.first_coefficient = fit.coefficients(c++);
  if (cols.g) m.second_coefficient = fit.coefficients(c++);
  if (cols.fg) m.product_coefficient = fit.coefficients(c++);

  // Extra-P's rule: a term that never reaches epsilon of the measured value explains nothing.
  for (Eigen::Index col = 1; col < k; ++col) {
    double largest = 0.0;
    for (Eigen::Index i = 0; i < n; ++i) {
      const double measured = std::fabs(y[static_cast<std::size_t>(i)]);
      const double term = std::fabs(fit.coefficients(col) * x(i, col));
      largest = std::max(largest, measured > 0.0 ? term / measured : (term > 0.0 ? kInf : 0.0));
    }
    if (!(largest >= options.min_term_contribution)) out.candidate.negligible_term = true;
  }

  // Leave-one-out in closed form: the held-out residual is e_i / (1 - h_ii).
  std::vector<double> held_out;
  out.rss = 0.0;
  out.smape = 0.0;
  for (Eigen::Index i = 0; i < n; ++i) {
    const double e = fit.residuals(i);
    const double yi = y[static_cast<std::size_t>(i)];
    out.rss += e * e;
    out.smape += smape_term(yi, yi - e);
    const double h = fit.leverage(i);
    held_out.push_back(1.0 - h < 1e-10 ? kInf : smape_term(yi, yi - e / (1.0 - h)));
  }
  out.smape /= static_cast<double>(n);
  out.candidate.cv_smape = stats::mean(held_out);
  out.cv_standard_error = stats::stddev(held_out) / std::sqrt(static_cast<double>(n));
  return out;
}

}  // namespace

std::string_view to_string(Combination combination) {
  switch (combination) {
    case Combination::kConstant:
      return "constant";
    case Combination::kFirstOnly:
      return "first only";
    case Combination::kSecondOnly:
      return "second only";
    case Combination::kMultiplicative:
      return "multiplicative";
    case Combination::kAdditive:
      return "additive";
    case Combination::kProductPlusFirst:
      return "product + first";
    case Combination::kProductPlusSecond:
      return "product + second";
    case Combination::kFull:
      return "additive + multiplicative";
  }
  return "unknown";
}

bool TwoParameterModel::uses_first() const {
  const Columns c = columns_of(combination);
  return c.f || c.fg;
}

bool TwoParameterModel::uses_second() const {
  const Columns c = columns_of(combination);
  return c.g || c.fg;
}

double TwoParameterModel::evaluate(double x1, double x2) const {
  const Columns c = columns_of(combination);
  const double fv = c.f || c.fg ? first.evaluate(x1) : 0.0;
  const double gv = c.g || c.fg ? second.evaluate(x2) : 0.0;
  double v = constant;
  if (c.f) v += first_coefficient * fv;
  if (c.g) v += second_coefficient * gv;
  if (c.fg) v += product_coefficient * fv * gv;
  return v;
}

std::string TwoParameterModel::to_string(std::string_view first_name, std::string_view second_name,
                                         int digits) const {
  const Columns c = columns_of(combination);
  std::string out = fmt::format("{:.{}g}", constant, digits);
  auto add = [&](double coefficient, const std::string& shape) {
    out += fmt::format(" {} {:.{}g} * {}", coefficient < 0 ? '-' : '+', std::fabs(coefficient),
                       digits, shape);
  };
  if (c.f) add(first_coefficient, shape_text(first, first_name));
  if (c.g) add(second_coefficient, shape_text(second, second_name));
  if (c.fg) {
    add(product_coefficient,
        shape_text(first, first_name) + " * " + shape_text(second, second_name));
  }
  return out;
}

TwoParameterResult fit_two_parameters(std::span<const Sample2> samples,
                                      const TwoParameterOptions& options) {
  TwoParameterResult result;
  for (const Sample2& s : samples) {
    if (!(s.first > 0.0) || !(s.second > 0.0)) {
      throw std::invalid_argument(fmt::format(
          "two-parameter models need positive parameters; got ({}, {})", s.first, s.second));
    }
  }
  const std::vector<Point> points = aggregate_points(samples, options.aggregation);
  result.stats.points = points.size();
  if (points.empty()) {
    result.warnings.push_back("no measurements: constant model 0");
    return result;
  }

  for (int which = 0; which < 2; ++which) {
    std::vector<SliceModel> s = model_slices(samples, which, options);
    const std::string& name = which == 0 ? options.first_name : options.second_name;
    std::vector<double> values;
    for (const Point& p : points) values.push_back(which == 0 ? p.x1 : p.x2);
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    if (s.empty() && values.size() > 1) {
      result.warnings.push_back(fmt::format(
          "{} takes {} values, but no slice (the other parameter fixed) has {} or more of them: "
          "no term in {}",
          name, values.size(), options.min_slice_points, name));
    }
    result.slices.insert(result.slices.end(), s.begin(), s.end());
  }
  std::vector<TermShape> fs = proposals(result.slices, 0);
  std::vector<TermShape> gs = proposals(result.slices, 1);

  std::vector<double> weights;
  double largest = 0.0;
  for (const Point& p : points) largest = std::max(largest, std::fabs(p.y));
  const double floor = largest > 0.0 ? 1e-9 * largest : 1.0;
  for (const Point& p : points) {
    const double scale = std::max(std::fabs(p.y), floor);
    weights.push_back(1.0 / (scale * scale));
  }

  // Fewest coefficients first, so that ties and near-ties keep the simpler hypothesis.
  std::vector<Fitted> fitted;
  const TermShape none;
  fitted.push_back(fit_hypothesis(points, weights, Combination::kConstant, none, none, options));
  for (const TermShape& f : fs) {
    fitted.push_back(fit_hypothesis(points, weights, Combination::kFirstOnly, f, none, options));
  }
  for (const TermShape& g : gs) {
    fitted.push_back(fit_hypothesis(points, weights, Combination::kSecondOnly, none, g, options));
  }
  for (Combination c :
       {Combination::kMultiplicative, Combination::kAdditive, Combination::kProductPlusFirst,
        Combination::kProductPlusSecond, Combination::kFull}) {
    for (const TermShape& f : fs) {
      for (const TermShape& g : gs)
        fitted.push_back(fit_hypothesis(points, weights, c, f, g, options));
    }
  }
  std::stable_sort(fitted.begin(), fitted.end(), [](const Fitted& a, const Fitted& b) {
    return a.coefficients < b.coefficients;
  });

  // The one-standard-error rule (Hastie, Tibshirani, Friedman, ESL 7.10): of the hypotheses
  // whose held-out error is within `standard_errors` standard errors of the lowest, the one with
  // the fewest coefficients wins; noise alone then does not buy a term.
  const Fitted* lowest = nullptr;
  for (const Fitted& f : fitted) {
    result.candidates.push_back(f.candidate);
    if (f.candidate.negligible_term || !std::isfinite(f.candidate.cv_smape)) continue;
    if (lowest == nullptr || f.candidate.cv_smape < lowest->candidate.cv_smape) lowest = &f;
  }
  const Fitted* best = nullptr;
  if (lowest != nullptr) {
    const double threshold =
        lowest->candidate.cv_smape + options.standard_errors * lowest->cv_standard_error + 1e-9;
    for (const Fitted& f : fitted) {  // fewest coefficients first
      if (f.candidate.negligible_term || !(f.candidate.cv_smape <= threshold)) continue;
      if (best == nullptr || (f.coefficients == best->coefficients &&
                              f.candidate.cv_smape < best->candidate.cv_smape)) {
        best = &f;
      }
    }
  }
  if (best == nullptr) {
    // Too few points to judge any hypothesis: the mean is all that can be said.
    double sum = 0.0;
    for (const Point& p : points) sum += p.y;
    result.model.constant = sum / static_cast<double>(points.size());
    result.warnings.push_back(
        fmt::format("{} point(s) are too few to cross-validate a model: constant model (the mean)",
                    points.size()));
    return result;
  }
  result.model = best->candidate.model;
  result.stats.rss = best->rss;
  result.stats.smape = best->smape;
  result.stats.cv_error = best->candidate.cv_smape;
  std::vector<double> y;
  for (const Point& p : points) y.push_back(p.y);
  result.stats.tss = total_sum_of_squares(y);
  const auto n = static_cast<double>(points.size());
  const auto k = static_cast<double>(best->coefficients);
  if (best->coefficients == 1 || result.stats.tss == 0.0) {
    result.stats.adjusted_r2 = 1.0;
  } else {
    result.stats.adjusted_r2 = 1.0 - (result.stats.rss / (n - k)) / (result.stats.tss / (n - 1.0));
  }
  return result;
}

}  // namespace ompscale::modeler

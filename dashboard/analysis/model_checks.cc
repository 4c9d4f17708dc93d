#include "dashboard/analysis/model_checks.h"

#include <fmt/format.h>

#include <array>
#include <cmath>

#include "dashboard/ingest/read_models.h"
#include "modeler/numerics/least_squares.h"
#include "modeler/prediction/predict.h"

namespace ompscale::dashboard {

namespace {

Finding model_finding(const ModelPoint& m, const SeriesInfo& s, FindingKind kind) {
  Finding f = finding_about(s, kind);
  f.thread_class = m.thread_class;
  f.date = m.date;
  f.label = m.label;
  f.run_id = m.run_id;
  f.noise_floor = std::nan("");
  f.p_value = std::nan("");
  return f;
}

// SMAPE (percent) of `model`'s form, its coefficients fitted anew, on `points`; NaN when the
// form cannot be fitted there.
double refit_smape(const modeler::Model& form, const std::vector<modeler::PointSummary>& points) {
  std::vector<modeler::TermShape> shapes;
  for (const modeler::Term& t : form.terms) shapes.push_back(t.shape);
  std::vector<double> t, y;
  for (const modeler::PointSummary& p : points) t.push_back(p.param), y.push_back(p.value);
  if (t.size() <= shapes.size() + 1) return std::nan("");
  const std::vector<double> weights(t.size(), 1.0);
  const modeler::LinearFit fit =
      modeler::fit_least_squares(modeler::design_matrix(t, shapes), y, weights);
  if (!fit.ok) return std::nan("");
  const modeler::Model refitted = fit.model(shapes);
  double sum = 0.0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const double f = refitted.evaluate(t[i]);
    const double scale = std::fabs(y[i]) + std::fabs(f);
    sum += scale > 0 ? 2.0 * std::fabs(y[i] - f) / scale : 0.0;
  }
  return 100.0 * sum / static_cast<double>(t.size());
}

// A growth class changes when the class differs and the previous model's form, fitted anew to the
// current points, misses them by more than the practical threshold beyond the errors both models
// make on their own points: competing forms that fit about equally well (t and t^(3/4) * log2(t)
// over 1 to 64 threads) are one growth as far as the data can tell.
std::optional<Finding> growth_change(const ModelPoint& previous, const ModelPoint& current,
                                     const SeriesInfo& s, double threshold) {
  const int before = growth_rank(previous.growth), after = growth_rank(current.growth);
  if (before < 0 || after < 0) return std::nullopt;
  const modeler::ClassModel old_model = class_model_from_document(previous.document);
  const modeler::ClassModel new_model = class_model_from_document(current.document);
  const double old_form_error = refit_smape(old_model.model, new_model.points);
  const double own_errors = new_model.stats.smape + old_model.stats.smape;
  if (!(old_form_error - own_errors > 100.0 * threshold)) return std::nullopt;
  Finding f = model_finding(current, s, FindingKind::kGrowthChange);
  f.worse = after > before;
  f.before = before;
  f.after = after;
  f.severity = 4.0 * std::abs(after - before);
  f.detail = fmt::format(
      "growth {} -> {}: model {} (was {}; the previous form misses the new points by {:.1f}% "
      "SMAPE, the new model by {:.1f}%)",
      previous.growth, current.growth, current.model, previous.model, old_form_error,
      new_model.stats.smape);
  return f;
}

// The current model's aggregated value at its largest thread count.
std::optional<double> value_at_largest(const modeler::ClassModel& model, double threads) {
  for (const modeler::PointSummary& p : model.points) {
    if (p.param == threads) return p.value;
  }
  return std::nullopt;
}

std::optional<Finding> outside_interval(const ModelPoint& previous, const ModelPoint& current,
                                        const SeriesInfo& s, const ModelCheckOptions& options) {
  const double t = current.largest_threads;
  if (!(t > 0)) return std::nullopt;
  const modeler::ClassModel before = class_model_from_document(previous.document);
  const modeler::ClassModel now = class_model_from_document(current.document);
  const std::optional<double> value = value_at_largest(now, t);
  if (!value || before.predictive.components.empty()) return std::nullopt;
  const modeler::Prediction p = modeler::predict(before.predictive, t, options.interval_level);
  if (!(p.value > 0) || (*value >= p.interval.low && *value <= p.interval.high)) {
    return std::nullopt;
  }
  // A previous model that missed its own point at t says nothing about the new one there.
  if (const auto own = value_at_largest(before, t);
      own && !(std::fabs(std::log(*own / p.value)) <= std::log1p(options.threshold))) {
    return std::nullopt;
  }
  const double floor =
      options.noise_floor ? options.noise_floor(s.id, static_cast<int>(t)) : std::nan("");
  const double threshold =
      std::isnan(floor) ? options.threshold : std::max(options.threshold, floor);
  const double effect = std::log(*value / p.value);
  if (!(std::fabs(effect) > std::log1p(threshold))) return std::nullopt;
  Finding f = model_finding(current, s, FindingKind::kOutsideInterval);
  f.worse = *value > p.interval.high;
  f.threads = static_cast<int>(t);
  f.before = p.value;
  f.after = *value;
  f.change = std::expm1(effect);
  f.noise_floor = floor;
  f.threshold = threshold;
  f.severity = std::fabs(effect) / std::log1p(threshold);
  f.detail = fmt::format(
      "at {} threads {:.4g} {} lies outside the previous model's {:g}% interval [{:.4g}, {:.4g}] "
      "around {:.4g} ({:+.1f}%)",
      t, *value, s.unit, 100 * options.interval_level, p.interval.low, p.interval.high, p.value,
      100 * f.change);
  return f;
}

std::string crossing_text(double threads) {
  return std::isnan(threads) ? std::string("never") : fmt::format("{:g} threads", threads);
}

std::optional<Finding> budget_moved(const ModelPoint& previous, const ModelPoint& current,
                                    const SeriesInfo& s) {
  if (std::isnan(previous.budget) || std::isnan(current.budget)) return std::nullopt;
  const double inf = std::numeric_limits<double>::infinity();
  const auto or_inf = [&](double v) { return std::isnan(v) ? inf : v; };
  const double now = or_inf(current.budget_threads);
  const double early = std::isnan(previous.budget_threads_early) ? or_inf(previous.budget_threads)
                                                                 : previous.budget_threads_early;
  const double late = or_inf(previous.budget_threads_late);
  if (now >= early && now <= late) return std::nullopt;
  Finding f = model_finding(current, s, FindingKind::kBudgetMoved);
  f.worse = now < early;
  f.before = previous.budget_threads;
  f.after = current.budget_threads;
  const double was = or_inf(previous.budget_threads);
  f.change = std::isinf(was) || std::isinf(now) ? std::nan("") : now / was - 1.0;
  f.severity = std::isnan(f.change) ? 2.0 : std::fabs(std::log(now / was)) / std::log(2.0) * 2.0;
  f.detail = fmt::format(
      "the budget of {:.4g} {} is exceeded at {} (was {}, interval {} .. {})", current.budget,
      s.unit, crossing_text(current.budget_threads), crossing_text(previous.budget_threads),
      crossing_text(previous.budget_threads_early), crossing_text(previous.budget_threads_late));
  return f;
}

// A model from fewer than three thread counts is the modeler's placeholder (a constant, with a
// warning), and an invalid one does not describe its points: neither is compared.
bool trustworthy(const ModelPoint& m) {
  return m.valid && m.points >= 3;
}

}  // namespace

int growth_rank(const std::string& growth) {
  constexpr std::array<std::string_view, 6> kOrder = {"decreasing", "constant", "logarithmic",
                                                      "sublinear",  "linear",   "superlinear"};
  for (std::size_t i = 0; i < kOrder.size(); ++i) {
    if (kOrder[i] == growth) return static_cast<int>(i);
  }
  return -1;
}

std::vector<Finding> model_findings(const std::vector<ModelHistory>& histories,
                                    const std::map<std::int64_t, SeriesInfo>& series,
                                    const ModelCheckOptions& options) {
  std::vector<Finding> out;
  for (const ModelHistory& h : histories) {
    const SeriesInfo& s = series.at(h.series);
    // The model that established the current growth: a model of another class whose points the
    // established form still fits (the modeler choosing between near-equal forms) leaves it.
    const ModelPoint* established = nullptr;
    for (std::size_t i = 0; i < h.models.size(); ++i) {
      const ModelPoint& current = h.models[i];
      if (!trustworthy(current)) continue;
      std::optional<Finding> growth;
      if (established == nullptr || established->growth == current.growth) {
        established = &current;
      } else if ((growth = growth_change(*established, current, s, options.threshold))) {
        established = &current;
      }
      if (i == 0 || current.date < options.since) continue;
      const ModelPoint& previous = h.models[i - 1];
      if (!trustworthy(previous)) continue;
      for (auto f : {growth, outside_interval(previous, current, s, options),
                     budget_moved(previous, current, s)}) {
        if (f) out.push_back(std::move(*f));
      }
    }
  }
  return out;
}

}  // namespace ompscale::dashboard

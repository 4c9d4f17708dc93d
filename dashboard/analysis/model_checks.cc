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
  f.model_set = m.model_set;
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
                                     const SeriesInfo& s, double threshold,
                                     const ModelComparer& comparer) {
  const int before = growth_rank(previous.growth), after = growth_rank(current.growth);
  if (before < 0 || after < 0) return std::nullopt;
  const GrowthComparison g = comparer.growth(previous, current);
  const double old_form_error = g.refit_smape;
  const double own_errors = g.smape + g.established_smape;
  if (!(old_form_error - own_errors > 100.0 * threshold)) return std::nullopt;
  Finding f = model_finding(current, s, FindingKind::kGrowthChange);
  f.worse = after > before;
  f.before = before;
  f.after = after;
  f.severity = 4.0 * std::abs(after - before);
  f.detail = fmt::format(
      "growth {} -> {}: model {} (was {}; the previous form misses the new points by {:.1f}% "
      "SMAPE, the new model by {:.1f}%)",
      previous.growth, current.growth, current.model, previous.model, old_form_error, g.smape);
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
                                        const SeriesInfo& s, const ModelCheckOptions& options,
                                        const ModelComparer& comparer) {
  const double t = current.largest_threads;
  if (!(t > 0)) return std::nullopt;
  const IntervalComparison c = comparer.interval(previous, current);
  if (std::isnan(c.value) || !(c.predicted > 0) || (c.value >= c.low && c.value <= c.high)) {
    return std::nullopt;
  }
  // A previous model that missed its own point at t says nothing about the new one there.
  if (!std::isnan(c.previous_value) &&
      !(std::fabs(std::log(c.previous_value / c.predicted)) <= std::log1p(options.threshold))) {
    return std::nullopt;
  }
  const double floor =
      options.noise_floor ? options.noise_floor(s.id, static_cast<int>(t)) : std::nan("");
  const double threshold =
      std::isnan(floor) ? options.threshold : std::max(options.threshold, floor);
  const double effect = std::log(c.value / c.predicted);
  if (!(std::fabs(effect) > std::log1p(threshold))) return std::nullopt;
  Finding f = model_finding(current, s, FindingKind::kOutsideInterval);
  f.worse = c.value > c.high;
  f.threads = static_cast<int>(t);
  f.before = c.predicted;
  f.after = c.value;
  f.change = std::expm1(effect);
  f.noise_floor = floor;
  f.threshold = threshold;
  f.severity = std::fabs(effect) / std::log1p(threshold);
  f.detail = fmt::format(
      "at {} threads {:.4g} {} lies outside the previous model's {:g}% interval [{:.4g}, {:.4g}] "
      "around {:.4g} ({:+.1f}%)",
      t, c.value, s.unit, 100 * options.interval_level, c.low, c.high, c.predicted, 100 * f.change);
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

GrowthComparison compare_growth(const modeler::ClassModel& established,
                                const modeler::ClassModel& current) {
  return {refit_smape(established.model, current.points), current.stats.smape,
          established.stats.smape};
}

IntervalComparison compare_interval(const modeler::ClassModel& previous,
                                    const modeler::ClassModel& current, double threads,
                                    double level) {
  const double none = std::nan("");
  IntervalComparison c{none, none, none, none, none};
  if (const auto value = value_at_largest(current, threads)) c.value = *value;
  if (const auto own = value_at_largest(previous, threads)) c.previous_value = *own;
  if (!previous.predictive.components.empty()) {
    const modeler::Prediction p = modeler::predict(previous.predictive, threads, level);
    c.predicted = p.value;
    c.low = p.interval.low;
    c.high = p.interval.high;
  }
  return c;
}

ModelComparer document_comparer(double interval_level) {
  ModelComparer comparer;
  comparer.growth = [](const ModelPoint& established, const ModelPoint& current) {
    return compare_growth(class_model_from_document(established.document),
                          class_model_from_document(current.document));
  };
  comparer.interval = [interval_level](const ModelPoint& previous, const ModelPoint& current) {
    return compare_interval(class_model_from_document(previous.document),
                            class_model_from_document(current.document), current.largest_threads,
                            interval_level);
  };
  return comparer;
}

std::vector<Finding> model_findings(std::span<const ModelHistory> histories,
                                    const std::map<std::int64_t, SeriesInfo>& series,
                                    const ModelCheckOptions& options,
                                    const ModelComparer& comparer) {
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
      } else if ((growth = growth_change(*established, current, s, options.threshold, comparer))) {
        established = &current;
      }
      if (i == 0 || current.date < options.since) continue;
      const ModelPoint& previous = h.models[i - 1];
      if (!trustworthy(previous)) continue;
      for (auto f : {growth, outside_interval(previous, current, s, options, comparer),
                     budget_moved(previous, current, s)}) {
        if (f) out.push_back(std::move(*f));
      }
    }
  }
  return out;
}

}  // namespace ompscale::dashboard

#include "modeler/io/plot_data.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/statistics.h"
#include "common/svg.h"
#include "modeler/io/write_common.h"

namespace ompscale::modeler::plot_detail {

namespace {

using svg::kPalette;
using svg::Range;

constexpr int kCurveSamples = 240;

Spread spread_of(std::vector<double> reps, double min, double max) {
  Spread s;
  if (reps.size() < 4) {
    s.low = min;
    s.high = max;
    return s;
  }
  std::sort(reps.begin(), reps.end());
  s.quartiles = true;
  s.q1 = stats::quantile(reps, 0.25);
  s.q3 = stats::quantile(reps, 0.75);
  const double reach = 1.5 * (s.q3 - s.q1);
  s.low = s.q1;
  s.high = s.q3;
  for (double v : reps) {
    if (v < s.q1 - reach || v > s.q3 + reach) {
      s.outliers.push_back(v);
    } else {
      s.low = std::min(s.low, v);
      s.high = std::max(s.high, v);
    }
  }
  return s;
}

// The repetitions of `kernel` at `param` (none when the dataset carries no samples).
std::vector<double> repetitions_at(const Kernel& kernel, double param) {
  for (std::size_t i = 0; i < kernel.size(); ++i) {
    if (kernel.param(i) == param) {
      return std::vector<double>(kernel.repetitions(i).begin(), kernel.repetitions(i).end());
    }
  }
  return {};
}

std::string value_label(const Dataset& dataset, const Kernel& kernel) {
  const std::size_t metric = io_detail::key_column_index(dataset, "metric");
  const std::size_t unit = io_detail::key_column_index(dataset, "unit");
  std::string label(metric < dataset.key_columns.size() ? kernel.key_value(metric) : "");
  if (label.empty()) label = "value";
  if (unit < dataset.key_columns.size() && !kernel.key_value(unit).empty()) {
    label += fmt::format(" [{}]", kernel.key_value(unit));
  }
  return label;
}

// Dataset points at thread counts none of the kernel's models was fitted on (median and spread).
std::vector<UnmodeledPoint> unmodeled_points(const Kernel& kernel, const KernelResult& result) {
  std::vector<UnmodeledPoint> out;
  for (std::size_t i = 0; i < kernel.size(); ++i) {
    const double param = kernel.param(i);
    bool modeled = false;
    for (const ClassModel& m : result.models) {
      modeled = modeled || std::any_of(m.points.begin(), m.points.end(),
                                       [&](const PointSummary& p) { return p.param == param; });
    }
    if (modeled) continue;
    std::vector<double> reps(kernel.repetitions(i).begin(), kernel.repetitions(i).end());
    std::sort(reps.begin(), reps.end());
    const double median = stats::median(reps);
    out.push_back({param, median, spread_of(reps, reps.front(), reps.back())});
  }
  return out;
}

// The label a model's curve has in the legend: its thread-count class, after the series columns'
// values when kernels share a panel ("param_value=27", "param_value=27, po2").
std::string series_label(const std::string& series, const ClassModel& m) {
  if (series.empty()) return m.thread_class;
  return m.thread_class == "all" ? series : fmt::format("{}, {}", series, m.thread_class);
}

// The results grouped into panels: results whose kernels differ only in `columns` share one.
std::vector<std::vector<std::size_t>> panel_groups(const Dataset& dataset,
                                                   const std::vector<KernelResult>& results,
                                                   const std::vector<bool>& series_column) {
  std::vector<std::vector<std::size_t>> groups;
  std::map<std::vector<std::string>, std::size_t> group_of;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const Kernel& kernel = io_detail::kernel_of(dataset, results[i]);
    std::vector<std::string> rest;
    for (std::size_t c = 0; c < dataset.key_columns.size(); ++c) {
      if (!series_column[c]) rest.emplace_back(kernel.key_value(c));
    }
    const auto [it, added] = group_of.try_emplace(rest, groups.size());
    if (added) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  return groups;
}

// One result's models as series of `panel`.
void add_series(Figure& figure, PanelData& panel, const Kernel& kernel, const KernelResult& r,
                const std::string& series) {
  for (const ClassModel& m : r.models) {
    Range measured;
    std::vector<Spread> spreads;
    for (const PointSummary& p : m.points) {
      measured.add(p.param);
      spreads.push_back(spread_of(repetitions_at(kernel, p.param), p.min, p.max));
      figure.any_quartiles |= spreads.back().quartiles;
      figure.any_outliers |= !spreads.back().outliers.empty();
    }
    if (measured.empty()) measured = Range{kNaN, kNaN};  // nothing measured: all dashed
    if (!m.has_model()) {
      panel.no_model = m.points.size() < 3 ? fmt::format("no model: {} point{}", m.points.size(),
                                                         m.points.size() == 1 ? "" : "s")
                                           : "no model";
    } else {
      figure.any_model = true;
    }
    const std::string label = series_label(series, m);
    if (figure.colour_of.count(label) == 0) {
      figure.colour_of[label] = kPalette[figure.series.size() % kPalette.size()];
      figure.series.push_back(label);
    }
    panel.series.push_back(
        {&m, figure.colour_of[label], measured.lo, measured.hi, std::move(spreads)});
    if (!m.predictions.empty() && std::isnan(figure.prediction_level)) {
      figure.prediction_level = m.predictions.front().level;
    }
  }
  for (UnmodeledPoint& p : unmodeled_points(kernel, r)) {
    figure.any_quartiles |= p.spread.quartiles;
    figure.any_outliers |= !p.spread.outliers.empty();
    panel.unmodeled.push_back(std::move(p));
  }
  figure.any_unmodeled |= !panel.unmodeled.empty();
}

}  // namespace

Figure collect_panels(const Dataset& dataset, const std::vector<KernelResult>& results,
                      const std::vector<bool>& shared, const std::vector<bool>& series_column) {
  Figure figure;
  std::vector<bool> skip = shared;  // panel titles: what the figure title does not say
  for (std::size_t c = 0; c < skip.size(); ++c) skip[c] = skip[c] || series_column[c];
  std::vector<bool> only_series = series_column;
  only_series.flip();
  const bool lines =
      std::find(series_column.begin(), series_column.end(), true) != series_column.end();
  for (const auto& group : panel_groups(dataset, results, series_column)) {
    const Kernel& first = io_detail::kernel_of(dataset, results[group.front()]);
    PanelData panel;
    panel.full_key = lines ? io_detail::key_text(dataset, first, series_column)
                           : io_detail::kernel_label(dataset, first);
    if (panel.full_key.empty()) panel.full_key = "(all)";
    panel.title = io_detail::key_text(dataset, first, skip);
    if (panel.title.empty()) panel.title = panel.full_key;
    panel.value_label = value_label(dataset, first);
    for (std::size_t i : group) {
      const Kernel& kernel = io_detail::kernel_of(dataset, results[i]);
      const std::string series =
          lines ? io_detail::key_text(dataset, kernel, only_series) : std::string();
      add_series(figure, panel, kernel, results[i], series);
    }
    figure.panels.push_back(std::move(panel));
  }
  return figure;
}

XExtent x_extent(const PanelData& panel, const PlotOptions& options) {
  Range measured;
  double furthest_prediction = 0.0;
  for (const ClassSeries& s : panel.series) {
    for (const PointSummary& p : s.model->points) {
      if (p.param > 0.0) measured.add(p.param);
    }
    for (const Prediction& p : s.model->predictions) {
      if (p.param > 0.0) furthest_prediction = std::max(furthest_prediction, p.param);
    }
  }
  for (const UnmodeledPoint& p : panel.unmodeled) {
    if (p.param > 0.0) measured.add(p.param);
  }
  if (measured.empty()) {
    // Nothing measured (a hand-written models file): show the predictions or a typical range.
    measured.add(furthest_prediction > 0.0 ? furthest_prediction / 4.0 : 1.0);
    measured.add(furthest_prediction > 0.0 ? furthest_prediction : 16.0);
  }
  double right = options.extrapolate_to.value_or(std::max(4.0 * measured.hi, furthest_prediction));
  right = std::max(right, measured.hi);
  if (right <= measured.lo) right = measured.lo * 2.0;
  return {measured.lo, measured.hi, right};
}

std::vector<CurvePiece> curve_pieces(const ClassSeries& s, double left, double right) {
  std::vector<double> ts;
  const double a = std::log2(left);
  const double b = std::log2(right);
  for (int i = 0; i <= kCurveSamples; ++i) ts.push_back(std::exp2(a + (b - a) * i / kCurveSamples));
  // Exact ends: exp2(log2(x)) may differ from x in the last bit.
  ts.front() = left;
  ts.back() = right;
  // The measured range's ends are sampled exactly, so solid and dashed pieces meet there.
  for (double t : {s.measured_lo, s.measured_hi}) {
    if (t > left && t < right) ts.push_back(t);
  }
  std::sort(ts.begin(), ts.end());

  std::vector<CurvePiece> pieces;
  for (double t : ts) {
    // Written so that a class without measured points (NaN range) is dashed everywhere.
    const bool extrapolated = !(t >= s.measured_lo && t <= s.measured_hi);
    const std::pair<double, double> sample{t, s.model->model.evaluate(t)};
    if (pieces.empty() || pieces.back().extrapolated != extrapolated) {
      CurvePiece piece{extrapolated, {}};
      // Solid and dashed pieces share their boundary sample, so the curve has no gap.
      if (!pieces.empty()) {
        if (t == s.measured_lo || t == s.measured_hi) {
          pieces.back().points.push_back(sample);
        } else {
          piece.points.push_back(pieces.back().points.back());
        }
      }
      pieces.push_back(std::move(piece));
    }
    pieces.back().points.push_back(sample);
  }
  return pieces;
}

std::vector<Prediction> sorted_predictions(const ClassModel& model) {
  std::vector<Prediction> out = model.predictions;
  std::sort(out.begin(), out.end(),
            [](const Prediction& a, const Prediction& b) { return a.param < b.param; });
  return out;
}

}  // namespace ompscale::modeler::plot_detail

#include "modeler/io/plot_svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <span>
#include <string_view>

#include "common/error.h"
#include "common/svg.h"
#include "common/text.h"
#include "modeler/io/plot_data.h"
#include "modeler/io/write_common.h"

namespace ompscale::modeler {

namespace {

using namespace plot_detail;
using svg::Axis;
using svg::draw_marker;
using svg::draw_whisker;
using svg::fit_text;
using svg::kBoldEm;
using svg::kDashes;
using svg::kEm;
using svg::kFontFamily;
using svg::kGridColour;
using svg::kPalette;
using svg::kTextColour;
using svg::linear_ticks;
using svg::log10_ticks;
using svg::log2_ticks;
using svg::px;
using svg::Range;
using svg::SvgWriter;
using svg::text_width;
using svg::Tick;

constexpr std::string_view kUnmodeledColour = "#9a9a9a";

constexpr double kTitleFont = 15.0;
constexpr double kPanelTitleFont = 12.5;
constexpr double kLabelFont = 11.5;
constexpr double kTickFont = 10.5;
constexpr double kLegendFont = 11.5;
constexpr double kOuterMargin = 12.0;

// Panel layout, relative to the panel's corner.
constexpr double kPlotLeft = 66.0;
constexpr double kPlotRight = 16.0;
constexpr double kPlotTop = 30.0;
// A panel title's second line, when some title needs one.
constexpr double kTitleLine = 15.0;
constexpr double kPlotBottom = 44.0;

std::string path_data(const std::vector<std::pair<double, double>>& points, const Axis& x,
                      const Axis& y) {
  std::string d;
  bool pen_down = false;
  for (const auto& [t, value] : points) {
    if (!y.drawable(value) || !x.drawable(t)) {
      pen_down = false;  // a gap, e.g. a non-positive value on a log axis
      continue;
    }
    d += fmt::format("{}{},{} ", pen_down ? 'L' : 'M', px(x.map(t)), px(y.map(value)));
    pen_down = true;
  }
  if (!d.empty()) d.pop_back();
  return d;
}

void draw_box(SvgWriter& svg, double x, double y_q1, double y_q3, std::string_view colour) {
  svg.empty("rect", fmt::format("x=\"{}\" y=\"{}\" width=\"7\" height=\"{}\" fill=\"white\" "
                                "stroke=\"{}\" stroke-width=\"1.1\"",
                                px(x - 3.5), px(std::min(y_q1, y_q3)),
                                px(std::max(0.5, std::fabs(y_q1 - y_q3))), colour));
}

void draw_outlier(SvgWriter& svg, double x, double y, std::string_view colour) {
  svg.empty("circle", fmt::format("class=\"outlier\" cx=\"{}\" cy=\"{}\" r=\"2.4\" fill=\"none\" "
                                  "stroke=\"{}\" stroke-width=\"0.9\"",
                                  px(x), px(y), colour));
}

// Outliers beyond the value axis: a small triangle at the edge they lie beyond, with how many
// beside it (the legend says what it is); its tooltip adds how far.
void draw_off_scale(SvgWriter& svg, double x, double y_edge, bool above, std::size_t count,
                    double furthest, std::string_view colour) {
  const double tip = above ? y_edge + 1 : y_edge - 1;
  const double base = above ? tip + 6 : tip - 6;
  svg.open("polygon",
           fmt::format("class=\"off-scale\" points=\"{},{} {},{} {},{}\" fill=\"{}\"", px(x),
                       px(tip), px(x - 4), px(base), px(x + 4), px(base), colour));
  svg.raw(fmt::format("<title>{} outlier{} {} the axis, up to {:.4g}</title>\n", count,
                      count == 1 ? "" : "s", above ? "above" : "below", furthest));
  svg.close("polygon");
  svg.text(x + 5, (tip + base) / 2 + 3, fmt::format("{}", count),
           fmt::format("class=\"off-scale-count\" font-size=\"9\" fill=\"{}\"", colour));
}

// A panel title on at most two lines of `width` pixels, broken between key values (cut only
// beyond two): the values that tell panels apart come last and were cut first.
std::vector<std::string> title_lines(const std::string& title, double width) {
  std::vector<std::string> lines;
  std::string line;
  for (const std::string& word : split(title, ' ')) {
    const std::string longer = line.empty() ? word : line + " " + word;
    if (!line.empty() && lines.size() < 1 && text_width(longer, kPanelTitleFont, kBoldEm) > width) {
      lines.push_back(line);
      line = word;
    } else {
      line = longer;
    }
  }
  lines.push_back(line);
  for (std::string& l : lines) l = fit_text(l, width, kPanelTitleFont, kBoldEm);
  return lines;
}

void draw_spread(SvgWriter& svg, double x, const Spread& s, const Axis& y, double plot_top,
                 double plot_bottom, std::string_view colour) {
  if (y.drawable(s.low) && y.drawable(s.high) && s.high > s.low) {
    draw_whisker(svg, x, y.map(s.low), y.map(s.high), colour);
  }
  if (s.quartiles && y.drawable(s.q1) && y.drawable(s.q3)) {
    draw_box(svg, x, y.map(s.q1), y.map(s.q3), colour);
  }
  std::size_t above = 0, below = 0;
  double highest = -std::numeric_limits<double>::infinity();
  double lowest = std::numeric_limits<double>::infinity();
  for (double v : s.outliers) {
    if (!y.drawable(v) || v < y.lo) {
      ++below;
      lowest = std::min(lowest, v);
    } else if (v > y.hi) {
      ++above;
      highest = std::max(highest, v);
    } else {
      draw_outlier(svg, x, y.map(v), colour);
    }
  }
  if (above > 0) draw_off_scale(svg, x, plot_top, true, above, highest, colour);
  if (below > 0) draw_off_scale(svg, x, plot_bottom, false, below, lowest, colour);
}

// Where a panel and its plot area sit in the figure.
struct PanelBox {
  double left, top, width;
  double plot_left, plot_right, plot_top, plot_bottom;
};

// `title_extra`: the room a second line of panel titles takes, when some title needs one.
PanelBox panel_box(double left, double top, const PlotOptions& options, double title_extra) {
  return {left,
          top,
          static_cast<double>(options.panel_width),
          left + kPlotLeft,
          left + options.panel_width - kPlotRight,
          top + kPlotTop + title_extra,
          top + options.panel_height - kPlotBottom};
}

// The width a panel title may take: the panel's, less a margin.
double title_width(const PlotOptions& options) {
  return options.panel_width - 16.0;
}

// A panel's axes, their ticks and the sampled model curves (one list per series).
struct PanelScales {
  Axis x, y;
  std::vector<Tick> x_ticks, y_ticks;
  std::vector<std::vector<CurvePiece>> curves;
};

// The values a panel draws (what the value axis must fit) and, apart, the measured ones: what a
// log axis must show whatever the curves do.
void collect_values(const PanelData& panel, const XExtent& extent, const Axis& x, bool log_y,
                    PanelScales& scales, Range& values, Range& measured) {
  for (const ClassSeries& s : panel.series) {
    for (std::size_t i = 0; i < s.model->points.size(); ++i) {
      for (double v : {s.model->points[i].value, s.spreads[i].low, s.spreads[i].high}) {
        if (!log_y || v > 0.0) values.add(v), measured.add(v);
      }
    }
    // A class without a model shows its points only.
    scales.curves.push_back(s.model->has_model() ? curve_pieces(s, extent.measured_lo, extent.right)
                                                 : std::vector<CurvePiece>{});
    for (const CurvePiece& piece : scales.curves.back()) {
      for (const auto& [t, v] : piece.points) {
        if (!log_y || v > 0.0) values.add(v);
      }
    }
    for (const Prediction& p : s.model->predictions) {
      if (p.param > x.hi) continue;
      for (double v : {p.value, p.interval.low, p.interval.high}) {
        if (!log_y || v > 0.0) values.add(v);
      }
    }
  }
  for (const UnmodeledPoint& p : panel.unmodeled) {
    for (double v : {p.value, p.spread.low, p.spread.high}) {
      if (!log_y || v > 0.0) values.add(v), measured.add(v);
    }
  }
}

// The value axis over `values`, padded, with its ticks.
void fit_value_axis(Range values, const Range& measured, const PanelBox& b, bool log_y,
                    PanelScales& scales) {
  if (values.empty()) values = Range{log_y ? 1.0 : 0.0, log_y ? 10.0 : 1.0};
  // On a log axis, curves and intervals reaching towards zero would stretch it over many empty
  // decades: it ends a decade below the smallest measurement.
  if (log_y && !measured.empty()) values.lo = std::max(values.lo, measured.lo / 10.0);
  double lo = values.lo;
  double hi = values.hi;
  if (log_y) {
    if (hi / lo < 1.5) {
      lo /= 1.25;
      hi *= 1.25;
    }
    const double pad = std::pow(hi / lo, 0.05);
    // The axis maps log2 values; decade ticks land where they belong since log2 ~ log10.
    scales.y = Axis{lo / pad, hi * pad, true, b.plot_bottom, b.plot_top};
    scales.y_ticks = log10_ticks(scales.y, b.plot_bottom - b.plot_top);
    return;
  }
  if (hi - lo <= std::fabs(hi) * 1e-12) {
    const double half = std::fabs(hi) > 0 ? std::fabs(hi) * 0.1 : 1.0;
    lo -= half;
    hi += half;
  }
  const double pad = 0.06 * (hi - lo);
  // Costs are non-negative: start the axis at zero rather than a little below it.
  const double padded_lo = (lo >= 0.0 && lo - pad < 0.0) ? 0.0 : lo - pad;
  scales.y = Axis{padded_lo, hi + pad, false, b.plot_bottom, b.plot_top};
  scales.y_ticks = linear_ticks(scales.y, b.plot_bottom - b.plot_top);
}

// What the value axis of a panel must fit: its own values and measurements, and those of the
// panels it shares the axis with.
struct ValueRanges {
  Range values, measured;
};

PanelScales panel_scales(const PanelData& panel, const PanelBox& b, const PlotOptions& options,
                         const ValueRanges* shared = nullptr) {
  PanelScales scales;
  // x axis: log2, padded by a small fraction of its span so end points are not on the frame.
  const XExtent extent = x_extent(panel, options);
  const double octaves = std::log2(extent.right / extent.measured_lo);
  const double x_pad = std::exp2(std::max(0.15, 0.04 * octaves));
  scales.x =
      Axis{extent.measured_lo / x_pad, extent.right * x_pad, true, b.plot_left, b.plot_right};
  // Collect what is drawn, then fit the value axis to it.
  Range values;
  Range measured;
  collect_values(panel, extent, scales.x, options.log_y, scales, values, measured);
  if (shared != nullptr) {
    values = shared->values;
    measured = shared->measured;
  }
  fit_value_axis(values, measured, b, options.log_y, scales);
  scales.x_ticks = log2_ticks(scales.x, b.plot_right - b.plot_left);
  return scales;
}

// The panel's own values (independent of where it is drawn).
ValueRanges panel_values(const PanelData& panel, const PlotOptions& options) {
  PanelScales scales;
  const XExtent extent = x_extent(panel, options);
  const double octaves = std::log2(extent.right / extent.measured_lo);
  const double x_pad = std::exp2(std::max(0.15, 0.04 * octaves));
  const Axis x{extent.measured_lo / x_pad, extent.right * x_pad, true, 0.0, 1.0};
  ValueRanges ranges;
  collect_values(panel, extent, x, options.log_y, scales, ranges.values, ranges.measured);
  return ranges;
}

// Panels of one kernel measured on different runtimes (keys that differ only in runtime,
// runtime_version or compiler) share their value axis, so their costs compare at a glance.
std::vector<ValueRanges> shared_value_ranges(const std::vector<PanelData>& panels,
                                             const PlotOptions& options) {
  const auto without_runtime = [](const std::string& key) {
    std::string out;
    for (const std::string& pair : split(key, ' ')) {
      if (pair.starts_with("runtime=") || pair.starts_with("runtime_version=") ||
          pair.starts_with("compiler="))
        continue;
      out += pair + ' ';
    }
    return out;
  };
  std::map<std::string, ValueRanges> groups;
  std::vector<ValueRanges> own;
  for (const PanelData& panel : panels) {
    own.push_back(panel_values(panel, options));
    ValueRanges& group = groups[without_runtime(panel.full_key)];
    for (double v : {own.back().values.lo, own.back().values.hi}) {
      if (!own.back().values.empty()) group.values.add(v);
    }
    for (double v : {own.back().measured.lo, own.back().measured.hi}) {
      if (!own.back().measured.empty()) group.measured.add(v);
    }
  }
  std::vector<ValueRanges> shared;
  for (const PanelData& panel : panels)
    shared.push_back(groups.at(without_runtime(panel.full_key)));
  return shared;
}

// Whether an outlier of some panel lies beyond its value axis (the legend then explains the
// marks at the axis's edge).
bool any_off_scale(const std::vector<PanelData>& panels, const std::vector<ValueRanges>& ranges,
                   const PlotOptions& options) {
  const PanelBox unit{0, 0, 1, 0, 1, 0, 1};
  for (std::size_t i = 0; i < panels.size(); ++i) {
    PanelScales scales;
    fit_value_axis(ranges[i].values, ranges[i].measured, unit, options.log_y, scales);
    const auto beyond = [&](const Spread& s) {
      return std::any_of(s.outliers.begin(), s.outliers.end(), [&](double v) {
        return !scales.y.drawable(v) || v < scales.y.lo || v > scales.y.hi;
      });
    };
    for (const ClassSeries& series : panels[i].series) {
      if (std::any_of(series.spreads.begin(), series.spreads.end(), beyond)) return true;
    }
    for (const UnmodeledPoint& p : panels[i].unmodeled) {
      if (beyond(p.spread)) return true;
    }
  }
  return false;
}

void draw_grid(SvgWriter& svg, const PanelBox& b, const PanelScales& s) {
  svg.open("g", fmt::format("stroke=\"{}\" stroke-width=\"0.8\"", kGridColour));
  for (const Tick& t : s.x_ticks) {
    const double xp = s.x.map(t.value);
    svg.line(xp, b.plot_top, xp, b.plot_bottom, t.major ? "" : "stroke-dasharray=\"2,3\"");
  }
  for (const Tick& t : s.y_ticks) {
    const double yp = s.y.map(t.value);
    svg.line(b.plot_left, yp, b.plot_right, yp, "");
  }
  svg.close("g");
}

// Prediction bands (below the curves): a shaded polygon and a bar at each prediction.
void draw_bands(SvgWriter& svg, const PanelData& panel, const PanelScales& scales) {
  const Axis& x = scales.x;
  const Axis& y = scales.y;
  for (const ClassSeries& s : panel.series) {
    const std::vector<Prediction> predictions = sorted_predictions(*s.model);
    std::vector<const Prediction*> drawable;
    for (const Prediction& p : predictions) {
      if (x.drawable(p.param) && y.drawable(p.interval.low) && y.drawable(p.interval.high)) {
        drawable.push_back(&p);
      }
    }
    if (drawable.size() >= 2) {
      std::string points;
      for (const Prediction* p : drawable) {
        points += fmt::format("{},{} ", px(x.map(p->param)), px(y.map(p->interval.high)));
      }
      for (auto it = drawable.rbegin(); it != drawable.rend(); ++it) {
        points += fmt::format("{},{} ", px(x.map((*it)->param)), px(y.map((*it)->interval.low)));
      }
      points.pop_back();
      svg.empty("polygon", fmt::format("class=\"prediction-band\" points=\"{}\" fill=\"{}\" "
                                       "fill-opacity=\"0.16\" stroke=\"none\"",
                                       points, s.colour));
    }
    for (const Prediction* p : drawable) {
      const double xp = x.map(p->param);
      svg.line(xp, y.map(p->interval.low), xp, y.map(p->interval.high),
               fmt::format("stroke=\"{}\" stroke-opacity=\"0.5\" stroke-width=\"3\"", s.colour));
    }
  }
}

void draw_curves(SvgWriter& svg, const PanelData& panel, const PanelScales& scales) {
  for (std::size_t i = 0; i < panel.series.size(); ++i) {
    for (const CurvePiece& piece : scales.curves[i]) {
      const std::string d = path_data(piece.points, scales.x, scales.y);
      if (d.empty()) continue;
      svg.empty("path",
                fmt::format("class=\"{}\" d=\"{}\" fill=\"none\" stroke=\"{}\" "
                            "stroke-width=\"1.8\" stroke-linejoin=\"round\"{}",
                            piece.extrapolated ? "model extrapolated" : "model", d,
                            panel.series[i].colour,
                            piece.extrapolated ? fmt::format(" stroke-dasharray=\"{}\"", kDashes)
                                               : std::string()));
    }
  }
}

// Measurements, on top of bands and curves.
void draw_measurements(SvgWriter& svg, const PanelData& panel, const PanelBox& b,
                       const PanelScales& scales) {
  const Axis& x = scales.x;
  const Axis& y = scales.y;
  for (const UnmodeledPoint& p : panel.unmodeled) {
    if (!x.drawable(p.param) || !y.drawable(p.value)) continue;
    const double xp = x.map(p.param);
    draw_spread(svg, xp, p.spread, y, b.plot_top, b.plot_bottom, kUnmodeledColour);
    draw_marker(svg, xp, y.map(p.value), kUnmodeledColour);
  }
  for (const ClassSeries& s : panel.series) {
    for (std::size_t i = 0; i < s.model->points.size(); ++i) {
      const PointSummary& p = s.model->points[i];
      if (!x.drawable(p.param) || !y.drawable(p.value)) continue;
      const double xp = x.map(p.param);
      draw_spread(svg, xp, s.spreads[i], y, b.plot_top, b.plot_bottom, s.colour);
      draw_marker(svg, xp, y.map(p.value), s.colour);
    }
  }
}

void draw_frame_and_ticks(SvgWriter& svg, const PanelBox& b, const PanelScales& s) {
  svg.empty("rect", fmt::format("x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" "
                                "stroke=\"#333333\" stroke-width=\"0.9\"",
                                px(b.plot_left), px(b.plot_top), px(b.plot_right - b.plot_left),
                                px(b.plot_bottom - b.plot_top)));
  const std::string tick_style = "stroke=\"#333333\" stroke-width=\"0.9\"";
  const std::string tick_text = fmt::format("font-size=\"{}\" fill=\"{}\"", kTickFont, kTextColour);
  for (const Tick& t : s.x_ticks) {
    const double xp = s.x.map(t.value);
    svg.line(xp, b.plot_bottom, xp, b.plot_bottom + (t.major ? 4.5 : 2.5), tick_style);
    if (t.major) svg.text(xp, b.plot_bottom + 16, t.label, tick_text + " text-anchor=\"middle\"");
  }
  for (const Tick& t : s.y_ticks) {
    const double yp = s.y.map(t.value);
    svg.line(b.plot_left - (t.major ? 4.5 : 2.5), yp, b.plot_left, yp, tick_style);
    if (t.major) {
      svg.text(b.plot_left - 7, yp + kTickFont * 0.35, t.label, tick_text + " text-anchor=\"end\"");
    }
  }
}

// Axis labels, the panel's title and, when it has no model, why.
void draw_labels(SvgWriter& svg, const PanelData& panel, const PanelBox& b,
                 const std::string& parameter, double title_width) {
  const double plot_width = b.plot_right - b.plot_left;
  svg.text(
      b.plot_left + plot_width / 2, b.plot_bottom + 33, fmt::format("{} (log scale)", parameter),
      fmt::format("font-size=\"{}\" fill=\"{}\" text-anchor=\"middle\"", kLabelFont, kTextColour));
  const double label_x = b.left + 15;
  const double label_y = (b.plot_top + b.plot_bottom) / 2;
  svg.text(label_x, label_y, fit_text(panel.value_label, b.plot_bottom - b.plot_top, kLabelFont),
           fmt::format("font-size=\"{}\" fill=\"{}\" text-anchor=\"middle\" "
                       "transform=\"rotate(-90 {} {})\"",
                       kLabelFont, kTextColour, px(label_x), px(label_y)));
  // Centred on the panel, not on the plot area (which sits right of centre), so a title as wide
  // as the panel stays inside it.
  const std::vector<std::string> lines = title_lines(panel.title, title_width);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    svg.text(b.left + b.width / 2, b.top + 19 + kTitleLine * static_cast<double>(i), lines[i],
             fmt::format("class=\"panel-title\" font-size=\"{}\" font-weight=\"bold\" "
                         "fill=\"{}\" text-anchor=\"middle\"",
                         kPanelTitleFont, kTextColour));
  }
  if (panel.series.empty() || !panel.no_model.empty()) {
    // Top right: the measured points are on the left of an extrapolating axis.
    svg.text(
        b.plot_right - 6, b.plot_top + 15,
        fit_text(panel.series.empty() ? "no model" : panel.no_model, plot_width - 12, kLabelFont),
        fmt::format("font-size=\"{}\" fill=\"#888888\" text-anchor=\"end\"", kLabelFont));
  }
}

void draw_panel(SvgWriter& svg, const PanelData& panel, int index, double left, double top,
                const PlotOptions& options, const std::string& parameter, double title_extra,
                const ValueRanges& values) {
  const PanelBox b = panel_box(left, top, options, title_extra);
  const PanelScales scales = panel_scales(panel, b, options, &values);
  svg.open("g", fmt::format("class=\"panel\" id=\"{}panel-{}\"", options.id_prefix, index));
  svg.raw(fmt::format("<title>{}</title>\n", io_detail::xml_escape(panel.full_key)));
  svg.raw(fmt::format(
      "<defs><clipPath id=\"{}plot-area-{}\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>"
      "</clipPath></defs>\n",
      options.id_prefix, index, px(b.plot_left), px(b.plot_top), px(b.plot_right - b.plot_left),
      px(b.plot_bottom - b.plot_top)));
  draw_grid(svg, b, scales);
  svg.open("g", fmt::format("clip-path=\"url(#{}plot-area-{})\"", options.id_prefix, index));
  draw_bands(svg, panel, scales);
  draw_curves(svg, panel, scales);
  draw_measurements(svg, panel, b, scales);
  svg.close("g");
  draw_frame_and_ticks(svg, b, scales);
  draw_labels(svg, panel, b, parameter, title_width(options));
  svg.close("g");
}
// One legend entry: a swatch (line, marker, band or whisker) and its label.
struct LegendEntry {
  enum class Swatch {
    kModel,
    kMeasured,
    kBox,
    kOutlier,
    kOffScale,
    kExtrapolated,
    kBand,
    kUnmodeled
  };
  Swatch swatch;
  std::string_view colour;
  std::string label;
};

// Lays entries out left to right, wrapping at `width`; returns the height used.
double draw_legend(SvgWriter& svg, const std::vector<LegendEntry>& entries, double left, double top,
                   double width) {
  constexpr double kSwatch = 26.0;
  constexpr double kGap = 18.0;
  constexpr double kRow = 20.0;
  double x = left;
  double y = top + kRow / 2;
  svg.open("g",
           fmt::format("class=\"legend\" font-size=\"{}\" fill=\"{}\"", kLegendFont, kTextColour));
  for (const LegendEntry& e : entries) {
    const double entry_width = kSwatch + 6 + text_width(e.label, kLegendFont);
    if (x > left && x + entry_width > left + width) {
      x = left;
      y += kRow;
    }
    const double mid = x + kSwatch / 2;
    switch (e.swatch) {
      case LegendEntry::Swatch::kModel:
        svg.line(x, y, x + kSwatch, y, fmt::format("stroke=\"{}\" stroke-width=\"1.8\"", e.colour));
        draw_marker(svg, mid, y, e.colour);
        break;
      case LegendEntry::Swatch::kMeasured:
      case LegendEntry::Swatch::kUnmodeled:
        draw_whisker(svg, mid, y + 6, y - 6, e.colour);
        draw_marker(svg, mid, y, e.colour);
        break;
      case LegendEntry::Swatch::kBox:
        draw_whisker(svg, mid, y + 7, y - 7, e.colour);
        draw_box(svg, mid, y + 4, y - 4, e.colour);
        draw_marker(svg, mid, y, e.colour);
        break;
      case LegendEntry::Swatch::kOutlier:
        draw_outlier(svg, mid, y, e.colour);
        break;
      case LegendEntry::Swatch::kOffScale:
        svg.empty("polygon",
                  fmt::format("points=\"{},{} {},{} {},{}\" fill=\"{}\"", px(mid), px(y - 4),
                              px(mid - 4), px(y + 2), px(mid + 4), px(y + 2), e.colour));
        break;
      case LegendEntry::Swatch::kExtrapolated:
        svg.line(x, y, x + kSwatch, y,
                 fmt::format("stroke=\"{}\" stroke-width=\"1.8\" stroke-dasharray=\"{}\"", e.colour,
                             kDashes));
        break;
      case LegendEntry::Swatch::kBand:
        svg.empty("rect", fmt::format("x=\"{}\" y=\"{}\" width=\"{}\" height=\"10\" fill=\"{}\" "
                                      "fill-opacity=\"0.25\"",
                                      px(x), px(y - 5), px(kSwatch), e.colour));
        break;
    }
    svg.text(x + kSwatch + 6, y + kLegendFont * 0.35, e.label,
             fmt::format("font-size=\"{}\"", kLegendFont));
    x += entry_width + kGap;
  }
  svg.close("g");
  return y + kRow / 2 - top;
}

std::vector<LegendEntry> legend_entries(const Figure& f, bool off_scale) {
  std::vector<LegendEntry> legend;
  for (const std::string& c : f.series) {
    const std::string label =
        f.series.size() == 1 && c == "all" ? std::string("model") : fmt::format("model, {}", c);
    if (f.any_model) legend.push_back({LegendEntry::Swatch::kModel, f.colour_of.at(c), label});
  }
  legend.push_back(
      {f.any_quartiles ? LegendEntry::Swatch::kBox : LegendEntry::Swatch::kMeasured, "#555555",
       f.any_quartiles ? "measured (quartiles, whiskers to 1.5 IQR)" : "measured (min\u2013max)"});
  if (f.any_outliers) legend.push_back({LegendEntry::Swatch::kOutlier, "#555555", "outlier"});
  if (off_scale) {
    legend.push_back({LegendEntry::Swatch::kOffScale, "#555555",
                      "outliers beyond the value axis (how many beside it)"});
  }
  if (f.any_model) {
    legend.push_back({LegendEntry::Swatch::kExtrapolated, "#555555", "extrapolated"});
  }
  if (!std::isnan(f.prediction_level)) {
    legend.push_back({LegendEntry::Swatch::kBand, "#555555",
                      fmt::format("{:g}% prediction interval", f.prediction_level * 100.0)});
  }
  if (f.any_unmodeled) {
    legend.push_back({LegendEntry::Swatch::kUnmodeled, kUnmodeledColour, "measured, not modeled"});
  }
  return legend;
}

}  // namespace

std::string plot_svg(const Dataset& dataset, const std::vector<KernelResult>& results,
                     const PlotOptions& options) {
  if (options.panel_width < 160 || options.panel_height < 120) {
    throw UsageError(fmt::format("plot panels must be at least 160x120 pixels (got {}x{})",
                                 options.panel_width, options.panel_height));
  }
  if (options.columns < 1) throw UsageError("plot needs at least one column of panels");
  if (options.extrapolate_to && !(*options.extrapolate_to > 0.0)) {
    throw UsageError("the plot's extrapolation limit must be a positive thread count");
  }
  std::vector<bool> series_column(dataset.key_columns.size(), false);
  for (const std::string& column : options.series_columns) {
    const std::size_t c = io_detail::key_column_index(dataset, column);
    if (c >= series_column.size()) {
      throw UsageError(fmt::format("no key column '{}' to draw lines by", column));
    }
    series_column[c] = true;
  }

  std::vector<std::size_t> plotted;
  for (const KernelResult& r : results) plotted.push_back(r.kernel);
  const std::vector<bool> shared = io_detail::shared_columns(dataset, plotted);
  const Figure figure = collect_panels(dataset, results, shared, series_column);
  const std::vector<PanelData>& panels = figure.panels;
  const std::vector<ValueRanges> values = shared_value_ranges(panels, options);
  const std::vector<LegendEntry> legend =
      legend_entries(figure, any_off_scale(panels, values, options));
  double title_extra = 0.0;
  for (const PanelData& panel : panels) {
    if (title_lines(panel.title, title_width(options)).size() > 1) title_extra = kTitleLine;
  }

  const int count = static_cast<int>(panels.size());
  const int columns = std::max(1, std::min(options.columns, count));
  const int rows = (count + columns - 1) / columns;
  const double width = 2 * kOuterMargin + columns * options.panel_width;

  std::string title = options.title;
  if (title.empty()) {
    // The unit is on every value axis already; the other shared key values name the figure.
    std::vector<bool> skip = shared;
    skip.flip();
    const std::size_t unit = io_detail::key_column_index(dataset, "unit");
    if (unit < skip.size()) skip[unit] = true;
    const std::string common =
        results.empty()
            ? std::string()
            : io_detail::key_text(dataset, io_detail::kernel_of(dataset, results.front()), skip);
    title = common.empty() ? "Scaling models" : "Scaling models: " + common;
  }
  const std::string subtitle =
      fmt::format("{} from {} \u00b7 ompscale {}", dataset.parameter,
                  dataset.sources.empty() ? std::string("(no source)")
                                          : fmt::format("{}", fmt::join(dataset.sources, ", ")),
                  version_string());

  // Header (title, subtitle, legend) first into its own writer: its height places the panels.
  SvgWriter header;
  header.text(
      kOuterMargin + 4, kOuterMargin + kTitleFont,
      fit_text(title, width - 2 * kOuterMargin - 8, kTitleFont, kBoldEm),
      fmt::format("font-size=\"{}\" font-weight=\"bold\" fill=\"{}\"", kTitleFont, kTextColour));
  header.text(kOuterMargin + 4, kOuterMargin + kTitleFont + 17,
              fit_text(subtitle, width - 2 * kOuterMargin, 10.5),
              "font-size=\"10.5\" fill=\"#666666\"");
  const double legend_top = kOuterMargin + kTitleFont + 26;
  const double legend_height =
      draw_legend(header, legend, kOuterMargin + 4, legend_top, width - 2 * kOuterMargin - 8);
  const double panels_top = legend_top + legend_height + 6;
  const double height = panels_top + rows * options.panel_height + kOuterMargin;

  SvgWriter svg;
  if (options.xml_declaration) svg.raw("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  // Whole pixels and the font as a style: what HTML validators accept for inline SVG too.
  const std::string size = fmt::format("width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\"",
                                       std::ceil(width), std::ceil(height));
  svg.open("svg", fmt::format("xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" {} "
                              "style=\"font-family: {}\"",
                              size, kFontFamily));
  svg.raw(fmt::format("<title>{}</title>\n", io_detail::xml_escape(title)));
  svg.empty("rect", "x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"white\"");
  svg.raw(header.take());
  for (int i = 0; i < count; ++i) {
    const double left = kOuterMargin + (i % columns) * options.panel_width;
    const double top = panels_top + (i / columns) * options.panel_height;
    draw_panel(svg, panels[static_cast<std::size_t>(i)], i, left, top, options, dataset.parameter,
               title_extra, values[static_cast<std::size_t>(i)]);
  }
  svg.close("svg");
  return svg.take();
}

}  // namespace ompscale::modeler

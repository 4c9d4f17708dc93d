#include "dashboard/site/charts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/svg.h"

namespace ompscale::dashboard::site {

namespace {

constexpr double kLeft = 64, kRight = 150, kTop = 34, kBottom = 46;
constexpr std::string_view kWorse = "#c62828";
constexpr std::string_view kBetter = "#2e7d32";

svg::Axis value_axis(const HistoryChart& c, double top, double bottom) {
  svg::Range range;
  for (const ChartSeries& s : c.series) {
    for (const ChartPoint& p : s.points) {
      for (double v : {p.median, p.low, p.high}) {
        if (!c.log_y || v > 0) range.add(v);
      }
    }
  }
  if (range.empty()) range = {1.0, 10.0};
  if (c.log_y) {
    double lo = range.lo, hi = range.hi;
    if (hi / lo < 1.5) lo /= 1.25, hi *= 1.25;
    const double pad = std::pow(hi / lo, 0.06);
    return {lo / pad, hi * pad, true, bottom, top};
  }
  const double span = range.hi > range.lo ? range.hi - range.lo : std::max(1.0, range.hi);
  return {std::max(0.0, range.lo - 0.08 * span), range.hi + 0.08 * span, false, bottom, top};
}

void draw_frame(svg::SvgWriter& out, const HistoryChart& c, const svg::Axis& x, const svg::Axis& y,
                double right, double bottom) {
  const auto ticks =
      c.log_y ? svg::log10_ticks(y, bottom - kTop) : svg::linear_ticks(y, bottom - kTop);
  out.open("g", fmt::format("stroke=\"{}\" stroke-width=\"0.8\"", svg::kGridColour));
  for (const svg::Tick& t : ticks) out.line(kLeft, y.map(t.value), right, y.map(t.value), "");
  out.close("g");
  out.empty("rect", fmt::format("x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" "
                                "stroke=\"#333\" stroke-width=\"0.9\"",
                                kLeft, kTop, svg::px(right - kLeft), svg::px(bottom - kTop)));
  const std::string small = fmt::format("font-size=\"10.5\" fill=\"{}\"", svg::kTextColour);
  for (const svg::Tick& t : ticks) {
    out.text(kLeft - 6, y.map(t.value) + 3.5, t.label, small + " text-anchor=\"end\"");
  }
  // Dates: about one label per 90 pixels.
  const std::size_t n = c.dates.size();
  const std::size_t every =
      std::max<std::size_t>(1, n * 90 / static_cast<std::size_t>(right - kLeft) + 1);
  // Days, or times of day when every run was on one day.
  const bool one_day = n > 0 && c.dates.front().substr(0, 10) == c.dates.back().substr(0, 10);
  for (std::size_t i = 0; i < n; i += every) {
    const std::string label =
        one_day && c.dates[i].size() >= 16 ? c.dates[i].substr(11, 5) : c.dates[i].substr(0, 10);
    out.text(x.map(static_cast<double>(i)), bottom + 15, label, small + " text-anchor=\"middle\"");
  }
  out.text((kLeft + right) / 2, c.height - 8, "run (oldest to latest)",
           small + " text-anchor=\"middle\"");
  const double mid = (kTop + bottom) / 2;
  out.text(16, mid, svg::fit_text(c.y_label, bottom - kTop, 11),
           fmt::format("font-size=\"11\" fill=\"{}\" text-anchor=\"middle\" transform=\"rotate(-90 "
                       "16 {})\"",
                       svg::kTextColour, svg::px(mid)));
  out.text(kLeft, 20, svg::fit_text(c.title, c.width - kLeft - 10, 13),
           fmt::format("font-size=\"13\" font-weight=\"bold\" fill=\"{}\"", svg::kTextColour));
}

void draw_marks(svg::SvgWriter& out, const HistoryChart& c, const svg::Axis& x, double bottom) {
  for (const ChartMark& m : c.marks) {
    const std::string_view colour = m.worse ? kWorse : kBetter;
    const double x0 = x.map(static_cast<double>(m.x));
    if (m.until > m.x) {
      out.empty("rect",
                fmt::format("class=\"drift\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
                            "fill=\"{}\" fill-opacity=\"0.10\"",
                            svg::px(x0), kTop, svg::px(x.map(static_cast<double>(m.until)) - x0),
                            svg::px(bottom - kTop), colour));
    }
    out.line(x0, kTop, x0, bottom,
             fmt::format("class=\"change-point\" stroke=\"{}\" stroke-width=\"1.4\" "
                         "stroke-dasharray=\"{}\"",
                         colour, svg::kDashes));
    out.text(x0 + 3, kTop + 11, m.label, fmt::format("font-size=\"10\" fill=\"{}\"", colour));
  }
}

void draw_series(svg::SvgWriter& out, const ChartSeries& s, std::string_view colour,
                 const svg::Axis& x, const svg::Axis& y) {
  std::string d;
  for (const ChartPoint& p : s.points) {
    if (p.unusual || !y.drawable(p.median)) continue;
    d += fmt::format("{}{},{} ", d.empty() ? 'M' : 'L', svg::px(x.map(static_cast<double>(p.x))),
                     svg::px(y.map(p.median)));
  }
  if (!d.empty()) {
    d.pop_back();
    out.empty("path", fmt::format("class=\"history\" d=\"{}\" fill=\"none\" stroke=\"{}\" "
                                  "stroke-width=\"1.6\"",
                                  d, colour));
  }
  for (const ChartPoint& p : s.points) {
    if (!y.drawable(p.median)) continue;
    const double xp = x.map(static_cast<double>(p.x)), yp = y.map(p.median);
    if (y.drawable(p.low) && y.drawable(p.high) && p.high > p.low) {
      svg::draw_whisker(out, xp, y.map(p.low), y.map(p.high), p.unusual ? "#aaaaaa" : colour);
    }
    if (p.unusual) {
      out.empty("circle",
                fmt::format("class=\"unusual\" cx=\"{}\" cy=\"{}\" r=\"3.3\" fill=\"white\" "
                            "stroke=\"#888888\" stroke-width=\"1.2\"",
                            svg::px(xp), svg::px(yp)));
    } else {
      svg::draw_marker(out, xp, yp, p.flagged ? kWorse : colour, p.flagged ? 4.5 : 3.0);
    }
  }
}

}  // namespace

std::string history_svg(const HistoryChart& c) {
  const double right = c.width - kRight, bottom = c.height - kBottom;
  const double n = static_cast<double>(std::max<std::size_t>(2, c.dates.size()));
  const svg::Axis x{-0.5, n - 0.5, false, kLeft, right};
  const svg::Axis y = value_axis(c, kTop, bottom);
  svg::SvgWriter out;
  out.open("svg",
           fmt::format("xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" id=\"{}\" "
                       "width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" style=\"font-family: {}\" "
                       "role=\"img\"",
                       c.id, c.width, c.height, c.width, c.height, svg::kFontFamily));
  out.title(c.title);
  out.empty("rect", "x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"white\"");
  draw_frame(out, c, x, y, right, bottom);
  out.open("g", fmt::format("clip-path=\"url(#{}-area)\"", c.id));
  out.raw(
      fmt::format("<defs><clipPath id=\"{}-area\"><rect x=\"{}\" y=\"{}\" width=\"{}\" "
                  "height=\"{}\"/></clipPath></defs>\n",
                  c.id, kLeft, kTop, svg::px(right - kLeft), svg::px(bottom - kTop)));
  draw_marks(out, c, x, bottom);
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    draw_series(out, c.series[i], svg::kPalette[i % svg::kPalette.size()], x, y);
  }
  out.close("g");
  // Legend on the right.
  out.open("g", fmt::format("class=\"legend\" font-size=\"11\" fill=\"{}\"", svg::kTextColour));
  double ly = kTop + 8;
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const std::string_view colour = svg::kPalette[i % svg::kPalette.size()];
    out.line(right + 12, ly, right + 32, ly,
             fmt::format("stroke=\"{}\" stroke-width=\"1.6\"", colour));
    svg::draw_marker(out, right + 22, ly, colour, 3.0);
    out.text(right + 38, ly + 4, svg::fit_text(c.series[i].name, kRight - 44, 11), "");
    ly += 18;
  }
  out.text(right + 12, ly + 8, "whiskers: quartiles", "font-size=\"10\" fill=\"#666\"");
  out.text(right + 12, ly + 22, "hollow: unusual phase", "font-size=\"10\" fill=\"#666\"");
  out.close("g");
  out.close("svg");
  return out.take();
}

std::string sparkline_svg(std::span<const double> values, bool alarm) {
  constexpr double kWidth = 120, kHeight = 28, kPad = 4;
  svg::Range range;
  for (double v : values) range.add(v);
  svg::SvgWriter out;
  out.open("svg", fmt::format("xmlns=\"http://www.w3.org/2000/svg\" class=\"sparkline\" "
                              "width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\"",
                              kWidth, kHeight));
  if (!range.empty() && values.size() >= 2) {
    const double span = range.hi > range.lo ? range.hi - range.lo : 1.0;
    const auto px = [&](std::size_t i) {
      return kPad + (kWidth - 2 * kPad) * static_cast<double>(i) / (values.size() - 1);
    };
    const auto py = [&](double v) {
      return kHeight - kPad -
             (kHeight - 2 * kPad) * (range.hi > range.lo ? (v - range.lo) / span : 0.5);
    };
    std::string d;
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (!std::isfinite(values[i])) continue;
      d += fmt::format("{}{},{} ", d.empty() ? 'M' : 'L', svg::px(px(i)), svg::px(py(values[i])));
    }
    if (!d.empty()) d.pop_back();
    out.empty("path",
              fmt::format("d=\"{}\" fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1.3\"", d));
    out.empty("circle", fmt::format("cx=\"{}\" cy=\"{}\" r=\"2.6\" fill=\"{}\"",
                                    svg::px(px(values.size() - 1)), svg::px(py(values.back())),
                                    alarm ? kWorse : std::string_view("#1f77b4")));
  }
  out.close("svg");
  return out.take();
}

}  // namespace ompscale::dashboard::site

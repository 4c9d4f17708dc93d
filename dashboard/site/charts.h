#pragma once
// The site's own charts, drawn with the modeler's SVG primitives (common/svg.h): the
// history of a cost over runs (one line per thread count, quartiles as whiskers, steps and drifts
// marked, runs in an unusual canary phase hollow) and a sparkline for the index. Inline SVG for
// HTML pages: no XML declaration, ids prefixed by the chart's id.

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace ompscale::dashboard::site {

struct ChartPoint {
  std::size_t x = 0;  ///< index into HistoryChart::dates
  double median = 0, low = 0, high = 0;
  bool unusual = false;  ///< measured in an unusual canary phase
  bool flagged = false;  ///< a regression finding dated to this run
};

struct ChartSeries {
  std::string name;  ///< legend text, e.g. "2 threads"
  std::vector<ChartPoint> points;
};

/// A step (x == until) or drift (x < until) across the history.
struct ChartMark {
  std::size_t x = 0;
  std::size_t until = 0;
  std::string label;
  bool worse = false;
};

struct HistoryChart {
  std::string id;     ///< unique in the page (letters, digits, '-')
  std::string title;  ///< escaped when drawn
  std::string y_label;
  std::vector<std::string> dates;  ///< the x axis: one entry per run, oldest first
  std::vector<ChartSeries> series;
  std::vector<ChartMark> marks;
  int width = 760;
  int height = 300;
  bool log_y = true;
};

std::string history_svg(const HistoryChart& chart);

/// A 120 x 28 line of `values` (oldest first); the last point red when `alarm`.
std::string sparkline_svg(std::span<const double> values, bool alarm);

}  // namespace ompscale::dashboard::site

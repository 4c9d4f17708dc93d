// Charts of `--svg DIR` (docs/ompscan-report.md, "SVG charts"): speedup per top region, efficiency
// heat maps over threads x inputs (PaScal Viewer's diagram), and the time models drawn by the
// modeler's plot. Self-contained SVG 1.1; every text from the data is escaped.

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <string_view>

#include "common/svg.h"
#include "common/text.h"
#include "modeler/io/plot_svg.h"
#include "regions/report/writers.h"

namespace ompscale::regions::report {

namespace {

// The chart's frame: a title and, below it, a subtitle (the region's name), both left-aligned and
// cut to the width; the whole title in a tooltip.
std::string header(double width, double height, std::string_view title,
                   std::string_view subtitle = "") {
  std::string out = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"{2}\">\n"
      "<title>{3}</title>\n"
      "<rect width=\"{0}\" height=\"{1}\" fill=\"white\"/>\n"
      "<text x=\"12\" y=\"20\" font-size=\"14\" font-weight=\"bold\">{4}</text>\n",
      width, height, svg::kFontFamily,
      svg::xml_escape(subtitle.empty() ? std::string(title)
                                       : fmt::format("{} {}", title, subtitle)),
      svg::xml_escape(svg::fit_text(title, width - 24, 14 * 1.13)));
  if (!subtitle.empty()) {
    out += fmt::format("<text x=\"12\" y=\"36\" font-size=\"11\" fill=\"#555555\">{}</text>\n",
                       svg::xml_escape(svg::fit_text(subtitle, width - 24, 11)));
  }
  return out;
}

std::string text(double x, double y, std::string_view s, std::string_view anchor = "middle",
                 double size = 11) {
  return fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"{}\" text-anchor=\"{}\">{}</text>\n", x, y, size,
      anchor, svg::xml_escape(s));
}

/// Speedup over threads (log2 axis): measured per input, ideal, and the thread model's
/// prediction at the reference input beyond the measured range.
std::string speedup_chart(const Report& r, const RegionReport& rr, std::size_t rank) {
  const double width = 590, height = 390, left = 60, right = 180, top = 50, bottom = 50;
  const double pw = width - left - right, ph = height - top - bottom;
  const SeriesAnalysis& ref = rr.reference_series();
  const ThreadModel* model = rr.thread_model(r.models, ref.input);
  double x_hi = ref.reference_threads;
  for (const SeriesAnalysis& s : rr.series) x_hi = std::max<double>(x_hi, s.reference_threads);
  if (model != nullptr) {
    for (const PredictedPoint& p : model->predicted) x_hi = std::max(x_hi, p.threads);
  }
  double x_lo = ref.base_threads;
  for (const SeriesAnalysis& s : rr.series) x_lo = std::min<double>(x_lo, s.base_threads);
  if (!(x_hi > x_lo)) x_hi = x_lo * 2;
  double y_hi = x_hi / x_lo;  // ideal at the right end
  for (const SeriesAnalysis& s : rr.series) {
    for (const PointAnalysis& p : s.points) y_hi = std::max(y_hi, p.speedup);
  }
  // Ticks at 1, 2 or 5 times a power of ten, about five of them.
  const double raw_step = y_hi / 5.0;
  const double decade = std::pow(10.0, std::floor(std::log10(raw_step)));
  const double step = raw_step <= decade       ? decade
                      : raw_step <= 2 * decade ? 2 * decade
                      : raw_step <= 5 * decade ? 5 * decade
                                               : 10 * decade;
  y_hi = std::ceil(y_hi * 1.02 / step) * step;
  auto X = [&](double t) {
    return left + (std::log2(t) - std::log2(x_lo)) / (std::log2(x_hi) - std::log2(x_lo)) * pw;
  };
  auto Y = [&](double s) { return top + ph - s / y_hi * ph; };

  std::string out =
      header(width, height, fmt::format("Speedup of region #{}", rank), rr.region.label);
  for (double t = std::exp2(std::ceil(std::log2(x_lo))); t <= x_hi * 1.0001; t *= 2) {
    out += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#e3e3e3\"/>\n", X(t),
        top, top + ph);
    out += text(X(t), top + ph + 16, fmt::format("{:g}", t));
  }
  for (double s = 0.0; s <= y_hi * 1.0001; s += step) {
    out += fmt::format(
        "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#e3e3e3\"/>\n", left,
        Y(s), left + pw);
    out += text(left - 6, Y(s) + 4, fmt::format("{:g}", s), "end");
  }
  out += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#222\"/>\n", left,
      top, pw, ph);
  out += text(left + pw / 2, height - 12, "threads (log2)");
  out += fmt::format(
      "<text x=\"16\" y=\"{0:.1f}\" font-size=\"11\" text-anchor=\"middle\" "
      "transform=\"rotate(-90 16 {0:.1f})\">speedup against {1} thread(s)</text>\n",
      top + ph / 2, ref.base_threads);
  // Ideal: speedup p / p0 from the reference series' p0, drawn as the measured lines are: straight
  // between the thread counts the chart shows (measured and predicted), so that a measured line
  // that scales perfectly lies on it.
  std::set<double> ideal_threads = {x_lo, x_hi};
  for (const SeriesAnalysis& s : rr.series) {
    for (const PointAnalysis& p : s.points) ideal_threads.insert(p.threads);
  }
  if (model != nullptr) {
    for (const PredictedPoint& p : model->predicted) ideal_threads.insert(p.threads);
  }
  std::string ideal;
  for (const double t : ideal_threads) {
    ideal +=
        fmt::format("{}{:.1f},{:.1f}", ideal.empty() ? "M" : " L", X(t), Y(t / ref.base_threads));
  }
  out += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"#7f7f7f\" stroke-dasharray=\"6,4\"/>\n",
                     ideal);
  double legend_y = top + 10;
  auto legend = [&](std::string_view colour, std::string_view label, bool dashed) {
    out += fmt::format(
        "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"{3}\" "
        "stroke-width=\"2\"{4}/>\n",
        left + pw + 12, legend_y, left + pw + 34, colour,
        dashed ? " stroke-dasharray=\"6,4\"" : "");
    out += text(left + pw + 40, legend_y + 4, label, "start");
    legend_y += 18;
  };
  legend("#7f7f7f", "ideal", true);
  for (std::size_t i = 0; i < rr.series.size(); ++i) {
    const SeriesAnalysis& s = rr.series[i];
    const std::string_view colour = svg::kPalette[i % svg::kPalette.size()];
    std::string path;
    for (const PointAnalysis& p : s.points) {
      path += fmt::format("{}{:.1f},{:.1f}", path.empty() ? "M" : " L", X(p.threads), Y(p.speedup));
      out += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"{}\"/>\n",
                         X(p.threads), Y(p.speedup), colour);
    }
    out += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>\n", path,
                       colour);
    // Runs without --inputs have one unnamed input: its line is simply the measurement.
    legend(colour, s.input.empty() ? std::string("measured") : fmt::format("input {}", s.input),
           false);
    if (model != nullptr && s.input == ref.input && !model->predicted.empty()) {
      // Predicted speedup = efficiency * p / p0.
      std::string pred =
          fmt::format("M{:.1f},{:.1f}", X(s.reference().threads), Y(s.reference().speedup));
      for (const PredictedPoint& p : model->predicted) {
        if (!std::isfinite(p.efficiency)) continue;
        const double speedup = p.efficiency * p.threads / s.base_threads;
        pred += fmt::format(" L{:.1f},{:.1f}", X(p.threads), Y(std::clamp(speedup, 0.0, y_hi)));
      }
      out += fmt::format(
          "<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\" "
          "stroke-dasharray=\"2,3\"/>\n",
          pred, colour);
      legend(colour, "model (predicted)", true);
    }
  }
  return out + "</svg>\n";
}

/// Red (0) -> yellow (0.5) -> green (1 and above).
std::string heat_colour(double efficiency) {
  const double e = std::clamp(std::isfinite(efficiency) ? efficiency : 0.0, 0.0, 1.0);
  const double red = e < 0.5 ? 215 : 215 - (e - 0.5) * 2 * (215 - 26);
  const double green = e < 0.5 ? 48 + e * 2 * (190 - 48) : 190 - (e - 0.5) * 2 * (190 - 150);
  const double blue = e < 0.5 ? 39 : 39 + (e - 0.5) * 2 * (65 - 39);
  return fmt::format("rgb({:.0f},{:.0f},{:.0f})", red, green, blue);
}

/// The colour scale of the heat maps: a vertical bar from 0 (bottom) to 1 (top), labelled.
std::string colour_scale(double x, double top, double height) {
  std::string out =
      "<defs><linearGradient id=\"efficiency-scale\" x1=\"0\" y1=\"1\" x2=\"0\" "
      "y2=\"0\">\n";
  for (int i = 0; i <= 10; ++i) {
    out += fmt::format("<stop offset=\"{:.1f}\" stop-color=\"{}\"/>\n", i / 10.0,
                       heat_colour(i / 10.0));
  }
  out += "</linearGradient></defs>\n";
  out += fmt::format(
      "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"14\" height=\"{:.1f}\" "
      "fill=\"url(#efficiency-scale)\" stroke=\"#888888\" stroke-width=\"0.5\"/>\n",
      x, top, height);
  for (double v : {0.0, 0.5, 1.0}) {
    out += text(x + 20, top + height * (1.0 - v) + 4, fmt::format("{:.1f}", v), "start", 10);
  }
  out += fmt::format(
      "<text x=\"{0:.1f}\" y=\"{1:.1f}\" font-size=\"11\" text-anchor=\"middle\" "
      "transform=\"rotate(-90 {0:.1f} {1:.1f})\">parallel efficiency</text>\n",
      x + 52, top + height / 2);
  return out;
}

/// Efficiency over threads (rows, largest on top) x inputs (columns), one cell per measured
/// combination; "-" where nothing was measured; a colour scale on the right.
std::string heat_map(const Report& r, const std::vector<SeriesAnalysis>& series,
                     std::string_view title, std::string_view subtitle) {
  const Measurements& m = r.measurements;
  const double cell_w = 90, cell_h = 42, left = 70, top = 56;
  const double grid_w = cell_w * static_cast<double>(m.inputs.size());
  const double grid_h = cell_h * static_cast<double>(m.thread_counts.size());
  const double width = std::max(440.0, left + grid_w + 110);
  const double height = top + std::max(grid_h, 120.0) + 50;
  std::string out = header(width, height, title, subtitle);
  for (std::size_t row = 0; row < m.thread_counts.size(); ++row) {
    const int threads = m.thread_counts[m.thread_counts.size() - 1 - row];
    const double y = top + cell_h * static_cast<double>(row);
    out += text(left - 8, y + cell_h / 2 + 4, std::to_string(threads), "end");
    for (std::size_t col = 0; col < m.inputs.size(); ++col) {
      const double x = left + cell_w * static_cast<double>(col);
      const PointAnalysis* found = nullptr;
      for (const SeriesAnalysis& s : series) {
        if (s.input != m.inputs[col].name) continue;
        for (const PointAnalysis& p : s.points) {
          if (p.threads == threads) found = &p;
        }
      }
      out += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{}\" height=\"{}\" fill=\"{}\" "
          "stroke=\"white\"/>\n",
          x, y, cell_w, cell_h, found != nullptr ? heat_colour(found->efficiency) : "#eeeeee");
      out += text(x + cell_w / 2, y + cell_h / 2 + 4,
                  found != nullptr ? fmt::format("{:.2f}", found->efficiency) : "-", "middle", 12);
    }
  }
  const double bottom = top + grid_h;
  for (std::size_t col = 0; col < m.inputs.size(); ++col) {
    out += text(left + cell_w * (static_cast<double>(col) + 0.5), bottom + 16, m.inputs[col].name);
  }
  out += text(left + grid_w / 2, bottom + 36, "input");
  out += fmt::format(
      "<text x=\"16\" y=\"{0:.1f}\" font-size=\"11\" text-anchor=\"middle\" "
      "transform=\"rotate(-90 16 {0:.1f})\">threads</text>\n",
      top + (bottom - top) / 2);
  out += colour_scale(left + grid_w + 24, top, std::max(grid_h, 120.0));
  return out + "</svg>\n";
}

}  // namespace

std::vector<std::pair<std::string, std::string>> format_svgs(const Report& r) {
  std::vector<std::pair<std::string, std::string>> files;
  const std::size_t top = std::min(r.options.top, r.regions.size());
  for (std::size_t i = 0; i < top; ++i) {
    files.emplace_back(fmt::format("speedup-{}.svg", i + 1), speedup_chart(r, r.regions[i], i + 1));
  }
  if (r.measurements.inputs.size() > 1) {
    files.emplace_back("efficiency-program.svg",
                       heat_map(r, r.program, "Efficiency of the program", "threads x inputs"));
    for (std::size_t i = 0; i < top; ++i) {
      files.emplace_back(
          fmt::format("efficiency-{}.svg", i + 1),
          heat_map(r, r.regions[i].series, fmt::format("Efficiency of region #{}", i + 1),
                   r.regions[i].region.label));
    }
  }
  // The top regions' time models, in rank order.
  std::vector<modeler::KernelResult> results;
  for (std::size_t i = 0; i < top; ++i) {
    for (std::size_t m : r.regions[i].thread_models) {
      results.push_back(r.models.results[r.models.thread_models[m].result]);
    }
  }
  if (!results.empty()) {
    modeler::PlotOptions plot;
    plot.title = "Region time models over threads";
    plot.log_y = true;
    files.emplace_back("models.svg", modeler::plot_svg(r.models.dataset, results, plot));
  }
  // Every chart says which runtime its times are from (a description, not drawn).
  const std::string desc = fmt::format("<desc>Measured on {}</desc>\n",
                                       svg::xml_escape(measured_runtime_words(r.runtime)));
  for (auto& [name, svg] : files) {
    const std::size_t open = svg.find("<svg");
    const std::size_t end = open == std::string::npos ? open : svg.find('>', open);
    if (end != std::string::npos) svg.insert(end + 1, "\n" + desc);
  }
  return files;
}

}  // namespace ompscale::regions::report

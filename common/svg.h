#pragma once
// Drawing primitives shared by the SVG figures of the modeler (modeler/io/plot_svg.h), ompscan
// report's charts (regions/report/write_svg.cc) and the dashboard's charts: XML escaping, an SVG
// text builder that escapes every text from the data, axes with linear, log2 and log10 ticks,
// markers and whiskers, text width estimates, the palette and font. Everything is deterministic
// text; no fonts or scripts are referenced.

#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace ompscale::svg {

/// `text` safe inside XML/SVG text and attributes (&, <, >, quotes; control characters -> ' ').
std::string xml_escape(std::string_view text);

/// matplotlib's "tab10" palette: distinct, colour-blind friendlier than pure hues, familiar.
constexpr std::array<std::string_view, 10> kPalette = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                                       "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                                                       "#bcbd22", "#17becf"};
constexpr std::string_view kFontFamily = "DejaVu Sans, Helvetica, Arial, sans-serif";
constexpr std::string_view kTextColour = "#222222";
constexpr std::string_view kGridColour = "#e3e3e3";
constexpr std::string_view kDashes = "6,4";

/// Without font metrics, widths are estimated: DejaVu Sans averages ~0.6 em per character, its
/// bold ~0.68 em (titles estimated as regular ran into their neighbours).
constexpr double kEm = 0.6;
constexpr double kBoldEm = 0.68;

/// A pixel coordinate with two decimals.
std::string px(double v);

/// Estimated width of `text` in pixels.
double text_width(std::string_view text, double font_size, double em = kEm);
/// `text` cut to fit `width` pixels, the cut marked with an ellipsis (UTF-8 safe).
std::string fit_text(std::string_view text, double width, double font_size, double em = kEm);

/// One axis: data range and the pixel range it maps to. Logarithmic axes map log2 values (a
/// log10 axis is the same mapping with decade ticks).
struct Axis {
  double lo = 0.0;
  double hi = 1.0;
  bool logarithmic = false;
  double pixel_lo = 0.0;  ///< where `lo` is drawn
  double pixel_hi = 1.0;

  double transform(double v) const { return logarithmic ? std::log2(v) : v; }
  double map(double v) const {
    const double a = transform(lo);
    const double b = transform(hi);
    return pixel_lo + (transform(v) - a) / (b - a) * (pixel_hi - pixel_lo);
  }
  bool drawable(double v) const { return std::isfinite(v) && (!logarithmic || v > 0.0); }
};

struct Tick {
  double value;
  std::string label;
  bool major;  ///< labelled; minor ticks get a grid line only
};

/// About pixels / 45 ticks at 1, 2, 2.5 or 5 times a power of ten.
std::vector<Tick> linear_ticks(const Axis& axis, double pixels);
/// Powers of two, labelled every few when they would crowd.
std::vector<Tick> log2_ticks(const Axis& axis, double pixels);
/// Decades (with 2x and 5x below three decades; linear ticks below one decade), at most one
/// labelled decade per ~28 pixels.
std::vector<Tick> log10_ticks(const Axis& axis, double pixels);

/// Lower and upper bound of values seen, ignoring non-finite ones.
struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  void add(double v) {
    if (!std::isfinite(v)) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  bool empty() const { return lo > hi; }
};

/// SVG text built element by element; every text content goes through the XML escape.
class SvgWriter {
 public:
  void open(std::string_view element, std::string_view attributes);
  void close(std::string_view element);
  void empty(std::string_view element, std::string_view attributes);
  void text(double x, double y, std::string_view content, std::string_view attributes);
  void line(double x1, double y1, double x2, double y2, std::string_view attributes);
  /// A <title> (tooltip) with escaped content.
  void title(std::string_view content);
  void raw(std::string_view text) { out_ += text; }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

/// A filled circle with a white rim.
void draw_marker(SvgWriter& svg, double x, double y, std::string_view colour, double radius = 3.3);
/// A vertical bar with short caps, from y_low to y_high.
void draw_whisker(SvgWriter& svg, double x, double y_low, double y_high, std::string_view colour);

}  // namespace ompscale::svg

#include "common/svg.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/text.h"

namespace ompscale::svg {

namespace {

// 1, 2, 2.5 or 5 times a power of ten: the step that divides `span` into the number of steps
// closest to `target`.
double nice_step(double span, int target) {
  const double magnitude = std::pow(10.0, std::floor(std::log10(span / target)));
  double best = magnitude;
  for (double factor : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    const double step = factor * magnitude;
    if (std::fabs(span / step - target) < std::fabs(span / best - target)) best = step;
  }
  return best;
}

std::string tick_label(double value, double step) {
  if (value == 0.0) return "0";
  const double decimals = std::max(0.0, -std::floor(std::log10(step) + 1e-9));
  // Beyond three decimals the labels grow into the axis title: 6e-05, not 0.00006.
  if (std::fabs(value) < 1e7 && decimals <= 3) {
    return fmt::format("{:.{}f}", value, static_cast<int>(decimals));
  }
  return fmt::format("{:.3g}", value);
}

std::string power_label(int exponent, double base) {
  const double value = std::pow(base, exponent);
  if (exponent >= 0 && value < 1e6) return fmt::format("{:.0f}", value);
  if (exponent < 0 && exponent > -4) return fmt::format("{:g}", value);
  return fmt::format("{:g}^{}", base, exponent);
}

}  // namespace

double text_width(std::string_view text, double font_size, double em) {
  return em * font_size * static_cast<double>(display_width(text));
}

// Cuts `text` to fit `width` pixels, marking the cut with an ellipsis (UTF-8 safe).
std::string fit_text(std::string_view text, double width, double font_size, double em) {
  if (text_width(text, font_size, em) <= width) return std::string(text);
  const auto max_chars = static_cast<std::size_t>(std::max(1.0, width / (em * font_size) - 1.0));
  std::string out;
  std::size_t chars = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const bool starts_char = (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80;
    if (starts_char && ++chars > max_chars) break;
    out += text[i];
  }
  return out + "\u2026";
}

std::string px(double v) {
  return fmt::format("{:.2f}", v);
}

std::vector<Tick> linear_ticks(const Axis& axis, double pixels) {
  const int target = std::clamp(static_cast<int>(pixels / 45.0), 3, 8);
  const double step = nice_step(axis.hi - axis.lo, target);
  std::vector<Tick> ticks;
  for (double v = std::ceil(axis.lo / step - 1e-9) * step; v <= axis.hi + step * 1e-9; v += step) {
    const double snapped = std::fabs(v) < step * 1e-9 ? 0.0 : v;
    ticks.push_back({snapped, tick_label(snapped, step), true});
  }
  return ticks;
}

// Ticks at powers of two, labelled every `stride`-th power when they would crowd.
std::vector<Tick> log2_ticks(const Axis& axis, double pixels) {
  const int first = static_cast<int>(std::ceil(std::log2(axis.lo) - 1e-9));
  const int last = static_cast<int>(std::floor(std::log2(axis.hi) + 1e-9));
  const int count = std::max(1, last - first + 1);
  const int max_labels = std::max(2, static_cast<int>(pixels / 38.0));
  const int stride = (count + max_labels - 1) / max_labels;
  std::vector<Tick> ticks;
  for (int e = first; e <= last; ++e) {
    const bool major = (e - first) % stride == 0;
    ticks.push_back({std::exp2(e), major ? power_label(e, 2.0) : std::string(), major});
  }
  return ticks;
}

// Decades, with 2x and 5x in between when fewer than three decades are visible, and the linear
// 1-2-5 ticks when the range is narrower than a decade (otherwise it could show a single tick).
std::vector<Tick> log10_ticks(const Axis& axis, double pixels) {
  const double a = std::log10(axis.lo);
  const double b = std::log10(axis.hi);
  if (b - a < 1.0) {
    std::vector<Tick> ticks = linear_ticks(axis, pixels);
    std::erase_if(ticks, [](const Tick& t) { return t.value <= 0.0; });
    return ticks;
  }
  const bool fine = b - a < 3.0;
  // At most one labelled decade per ~28 pixels: 18 labels down to 1e-18 were unreadable.
  const int decades = static_cast<int>(std::ceil(b) - std::floor(a)) + 1;
  const int stride = std::max(1, (decades + static_cast<int>(pixels / 28.0) - 1) /
                                     std::max(1, static_cast<int>(pixels / 28.0)));
  std::vector<Tick> ticks;
  for (int e = static_cast<int>(std::floor(a)); e <= static_cast<int>(std::ceil(b)); ++e) {
    for (double factor : {1.0, 2.0, 5.0}) {
      if (factor != 1.0 && !fine) continue;
      const double v = factor * std::pow(10.0, e);
      if (v < axis.lo * (1 - 1e-9) || v > axis.hi * (1 + 1e-9)) continue;
      const bool labelled = e % stride == 0;
      ticks.push_back({v, labelled ? fmt::format("{:g}", v) : std::string(), labelled});
    }
  }
  return ticks;
}

void SvgWriter::open(std::string_view element, std::string_view attributes) {
  out_ += fmt::format("<{} {}>\n", element, attributes);
}

void SvgWriter::close(std::string_view element) {
  out_ += fmt::format("</{}>\n", element);
}

void SvgWriter::empty(std::string_view element, std::string_view attributes) {
  out_ += fmt::format("<{} {}/>\n", element, attributes);
}

void SvgWriter::text(double x, double y, std::string_view content, std::string_view attributes) {
  out_ += fmt::format("<text x=\"{}\" y=\"{}\" {}>{}</text>\n", px(x), px(y), attributes,
                      xml_escape(content));
}

void SvgWriter::line(double x1, double y1, double x2, double y2, std::string_view attributes) {
  out_ += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" {}/>\n", px(x1), px(y1),
                      px(x2), px(y2), attributes);
}

void SvgWriter::title(std::string_view content) {
  out_ += fmt::format("<title>{}</title>\n", xml_escape(content));
}

void draw_whisker(SvgWriter& svg, double x, double y_low, double y_high, std::string_view colour) {
  const std::string stroke = fmt::format("stroke=\"{}\" stroke-width=\"1.1\"", colour);
  svg.line(x, y_low, x, y_high, stroke);
  svg.line(x - 3, y_low, x + 3, y_low, stroke);
  svg.line(x - 3, y_high, x + 3, y_high, stroke);
}

void draw_marker(SvgWriter& svg, double x, double y, std::string_view colour, double radius) {
  svg.empty("circle", fmt::format("cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\" stroke=\"white\" "
                                  "stroke-width=\"0.8\"",
                                  px(x), px(y), radius, colour));
}

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // XML 1.0 forbids most control characters even as references.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') {
          out += ' ';
        } else {
          out += c;
        }
    }
  }
  return out;
}

}  // namespace ompscale::svg

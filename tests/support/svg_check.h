#pragma once
// Checks of rendered charts (clipped and overlapping titles, unreadable axes). Text
// extents are estimated as the charts estimate them (0.6 em per character, 0.68 em bold), so a
// text drawn centred on a point that lets it run past the edge, or into its neighbour, is found
// without a font renderer. render_png() turns the SVG into PNG with rsvg-convert (librsvg) and
// checks the result, so every chart is also known to render.

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "tests/support/process.h"

namespace ompscale::test_support {

struct SvgText {
  double left, right, y, size;
  std::string content;
};

/// Unrotated <text> elements of `svg` with their estimated horizontal extent.
inline std::vector<SvgText> svg_texts(const std::string& svg) {
  static const std::regex element(R"(<text ([^>]*)>([^<]*)</text>)");
  static const std::regex number(R"(([a-z-]+)="([^"]*)\")");
  std::vector<SvgText> out;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), element);
       it != std::sregex_iterator(); ++it) {
    const std::string attributes = (*it)[1];
    if (attributes.find("transform=") != std::string::npos) continue;
    double x = 0, y = 0, size = 16;
    std::string anchor = "start";
    bool bold = false;
    for (auto a = std::sregex_iterator(attributes.begin(), attributes.end(), number);
         a != std::sregex_iterator(); ++a) {
      const std::string name = (*a)[1], value = (*a)[2];
      if (name == "x") x = std::stod(value);
      if (name == "y") y = std::stod(value);
      if (name == "font-size") size = std::stod(value);
      if (name == "text-anchor") anchor = value;
      if (name == "font-weight") bold = value == "bold";
    }
    std::string content = (*it)[2];
    // Entities count as one character, UTF-8 continuation bytes as none.
    const std::string plain = std::regex_replace(content, std::regex("&[a-z]+;"), "x");
    const auto characters =
        static_cast<double>(std::count_if(plain.begin(), plain.end(), [](char c) {
          return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
        }));
    const double width = characters * size * (bold ? 0.68 : 0.6);
    const double left = anchor == "middle" ? x - width / 2 : anchor == "end" ? x - width : x;
    out.push_back({left, left + width, y, size, content});
  }
  return out;
}

/// The width attribute of the <svg> element.
inline double svg_width(const std::string& svg) {
  std::smatch m;
  std::regex_search(svg, m, std::regex(R"(<svg [^>]*width="([0-9.]+)\")"));
  return m.empty() ? 0.0 : std::stod(m[1]);
}

/// Texts that run past the chart's edges or into another text on the same line; "" when none.
inline std::string text_problems(const std::string& svg) {
  const double width = svg_width(svg);
  const std::vector<SvgText> texts = svg_texts(svg);
  std::string problems;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const SvgText& a = texts[i];
    if (a.left < -0.5 || a.right > width + 0.5)
      problems += "'" + a.content + "' runs past the edge (" + std::to_string(a.left) + ".." +
                  std::to_string(a.right) + " of " + std::to_string(width) + ")\n";
    for (std::size_t j = i + 1; j < texts.size(); ++j) {
      const SvgText& b = texts[j];
      const bool same_line = std::abs(a.y - b.y) < 0.8 * std::min(a.size, b.size);
      if (same_line && a.left < b.right - 0.5 && b.left < a.right - 0.5)
        problems += "'" + a.content + "' overlaps '" + b.content + "'\n";
    }
  }
  return problems;
}

/// Renders `svg` to PNG with rsvg-convert in `dir`; "" when it rendered to a PNG of the SVG's
/// width, else what went wrong.
inline std::string render_png(const std::string& svg, const std::filesystem::path& dir,
                              const std::string& name) {
  const std::filesystem::path in = dir / (name + ".svg");
  const std::filesystem::path out = dir / (name + ".png");
  spit(in, svg);
  const Outcome r = run_program({"/usr/bin/rsvg-convert", in.string(), "-o", out.string()}, dir);
  if (r.status != 0) return "rsvg-convert failed: " + r.err;
  const std::string png = slurp(out);
  if (png.size() < 24 || png.compare(1, 3, "PNG") != 0) return "not a PNG";
  const auto byte = [&](std::size_t i) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(png[i]));
  };
  const std::uint32_t png_width = byte(16) << 24 | byte(17) << 16 | byte(18) << 8 | byte(19);
  if (std::abs(static_cast<double>(png_width) - svg_width(svg)) > 1.0)
    return "PNG width " + std::to_string(png_width) + " for an SVG of width " +
           std::to_string(svg_width(svg));
  return "";
}

}  // namespace ompscale::test_support

#include "common/text_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <sstream>

#include "common/text.h"

namespace ompscale {

namespace {
std::string format_non_finite(double value) {
  if (std::isnan(value)) return "n/a";
  return value > 0 ? "inf" : "-inf";
}
}  // namespace

std::string format_significant(double value, int significant) {
  if (!std::isfinite(value)) return format_non_finite(value);
  return fmt::format("{:.{}g}", value, significant);
}

std::string format_fixed(double value, int decimals) {
  if (!std::isfinite(value)) return format_non_finite(value);
  return fmt::format("{:.{}f}", value, decimals);
}

std::string format_exact(double value) {
  return fmt::format("{}", value);
}

std::string format_seconds(double seconds) {
  if (!std::isfinite(seconds)) return format_non_finite(seconds);
  const double a = std::fabs(seconds);
  if (a >= 1.0) return fmt::format("{:.3g} s", seconds);
  if (a >= 1e-3) return fmt::format("{:.3g} ms", seconds * 1e3);
  if (a >= 1e-6) return fmt::format("{:.3g} us", seconds * 1e6);
  return fmt::format("{:.3g} ns", seconds * 1e9);
}

void TextTable::reserve(std::size_t rows, std::size_t bytes_per_row) {
  text_.reserve(rows * bytes_per_row);
  cell_end_.reserve(rows * alignment_.size());
  row_end_.reserve(rows);
}

void TextTable::add_row(const std::vector<std::string>& cells) {
  for (std::size_t c = 0; c < cells.size(); ++c) {
    text_ += cells[c];
    cell_end_.push_back(static_cast<std::uint32_t>(text_.size()));
    if (c < widths_.size()) widths_[c] = std::max(widths_[c], display_width(cells[c]));
  }
  row_end_.push_back(static_cast<std::uint32_t>(cell_end_.size()));
}

std::string TextTable::render(std::string_view indent) const {
  std::ostringstream out;
  render_to(out, indent);
  return std::move(out).str();
}

void TextTable::render_row(std::string& line, std::size_t& cell, std::size_t& begin,
                           std::uint32_t row_end, std::size_t skip) const {
  bool first = true;
  for (std::size_t c = 0; cell < row_end; ++c, ++cell) {
    const std::string_view text(text_.data() + begin, cell_end_[cell] - begin);
    begin = cell_end_[cell];
    if (c == skip) continue;
    const std::size_t width = c < widths_.size() ? widths_[c] : 0;
    const std::size_t padding = width - std::min(width, display_width(text));
    if (!first) line += "  ";
    first = false;
    const bool right = c < alignment_.size() && alignment_[c] == Align::kRight;
    if (right) line.append(padding, ' ');
    line += text;
    if (!right) line.append(padding, ' ');
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  line += '\n';
}

void TextTable::render_to(std::ostream& out, std::string_view indent) const {
  render_to(out, indent, 0, alignment_.size());
}

std::size_t TextTable::width() const {
  std::size_t total = 0;
  for (std::size_t c = 0; c < widths_.size(); ++c) total += widths_[c] + (c > 0 ? 2 : 0);
  return total;
}

void TextTable::render_to(std::ostream& out, std::string_view indent, std::size_t width,
                          std::size_t heading) const {
  const bool grouped =
      width > 0 && heading < widths_.size() && display_width(indent) + this->width() > width;
  const std::string row_indent = std::string(indent) + (grouped ? "  " : "");
  std::string line;
  std::string last_heading;
  std::size_t cell = 0;
  std::size_t begin = 0;
  for (std::size_t r = 0; r < row_end_.size(); ++r) {
    if (grouped && r > 0) {
      const std::size_t first = r == 0 ? 0 : row_end_[r - 1];
      if (first + heading < row_end_[r]) {
        const std::size_t from = first + heading == 0 ? 0 : cell_end_[first + heading - 1];
        const std::string_view text(text_.data() + from, cell_end_[first + heading] - from);
        if (text != last_heading) {
          last_heading = std::string(text);
          out << wrap(text, width, indent, row_indent + "  ");
        }
      }
    }
    line.assign(r == 0 || !grouped ? std::string(indent) : row_indent);
    render_row(line, cell, begin, row_end_[r], grouped ? heading : alignment_.size());
    out << line;
  }
}

}  // namespace ompscale

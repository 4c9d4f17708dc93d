#include "modeler/io/write_common.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <sstream>
#include <stdexcept>

namespace ompscale::modeler::io_detail {

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

std::size_t display_width(std::string_view text) {
  // Continuation bytes (10xxxxxx) do not start a character.
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
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

void TextTable::render_to(std::ostream& out, std::string_view indent) const {
  std::string line;
  std::size_t cell = 0;
  std::size_t begin = 0;
  for (const std::uint32_t row_end : row_end_) {
    line.assign(indent);
    for (std::size_t c = 0; cell < row_end; ++c, ++cell) {
      const std::string_view text(text_.data() + begin, cell_end_[cell] - begin);
      begin = cell_end_[cell];
      const std::size_t width = c < widths_.size() ? widths_[c] : 0;
      const std::size_t padding = width - std::min(width, display_width(text));
      if (c > 0) line += "  ";
      const bool right = c < alignment_.size() && alignment_[c] == Align::kRight;
      if (right) line.append(padding, ' ');
      line += text;
      if (!right) line.append(padding, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    line += '\n';
    out << line;
  }
}

std::string kernel_label(const Dataset& dataset, const Kernel& kernel) {
  std::string label = dataset.describe(kernel);
  return label.empty() ? "(all)" : label;
}

std::vector<std::string> key_values(const Dataset& dataset, const Kernel& kernel) {
  std::vector<std::string> out;
  out.reserve(dataset.key_columns.size());
  for (std::size_t c = 0; c < dataset.key_columns.size(); ++c) {
    out.emplace_back(kernel.key_value(c));
  }
  return out;
}

const Kernel& kernel_of(const Dataset& dataset, const KernelResult& result) {
  if (result.kernel >= dataset.kernels.size()) {
    throw std::out_of_range(fmt::format("result for kernel {} but the dataset has {} kernels",
                                        result.kernel, dataset.kernels.size()));
  }
  return dataset.kernels[result.kernel];
}

std::size_t key_column_index(const Dataset& dataset, std::string_view column) {
  const auto it = std::find(dataset.key_columns.begin(), dataset.key_columns.end(), column);
  return static_cast<std::size_t>(it - dataset.key_columns.begin());
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

}  // namespace ompscale::modeler::io_detail

#include "modeler/io/write_common.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
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

std::string TextTable::render(std::string_view indent) const {
  std::vector<std::size_t> widths(alignment_.size(), 0);
  for (const auto& row : rows_) {
    for (std::size_t c = 0; c < row.size() && c < widths.size(); ++c) {
      widths[c] = std::max(widths[c], display_width(row[c]));
    }
  }
  std::string out;
  for (const auto& row : rows_) {
    std::string line(indent);
    for (std::size_t c = 0; c < row.size(); ++c) {
      const std::size_t width = c < widths.size() ? widths[c] : 0;
      const std::size_t padding = width - std::min(width, display_width(row[c]));
      if (c > 0) line += "  ";
      const bool right = c < alignment_.size() && alignment_[c] == Align::kRight;
      if (right) line.append(padding, ' ');
      line += row[c];
      if (!right) line.append(padding, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line;
    out += '\n';
  }
  return out;
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

}  // namespace ompscale::modeler::io_detail

#include "modeler/io/write_common.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <sstream>
#include <stdexcept>

namespace ompscale::modeler::io_detail {

using ompscale::display_width;

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

std::string kernel_label(const Dataset& dataset, const Kernel& kernel) {
  std::string label = dataset.describe(kernel);
  return label.empty() ? "(all)" : label;
}

std::vector<bool> shared_columns(const Dataset& dataset, const std::vector<std::size_t>& kernels) {
  std::vector<bool> shared(dataset.key_columns.size(), kernels.size() > 1);
  if (kernels.size() <= 1) return shared;
  const Kernel& first = dataset.kernels.at(kernels.front());
  for (std::size_t k : kernels) {
    const Kernel& kernel = dataset.kernels.at(k);
    for (std::size_t c = 0; c < shared.size(); ++c) {
      shared[c] = shared[c] && kernel.key_value(c) == first.key_value(c);
    }
  }
  return shared;
}

std::string key_text(const Dataset& dataset, const Kernel& kernel, const std::vector<bool>& skip) {
  std::string out;
  for (std::size_t c = 0; c < dataset.key_columns.size(); ++c) {
    const std::string_view value = kernel.key_value(c);
    if (skip[c] || value.empty()) continue;
    if (!out.empty()) out += ' ';
    out += fmt::format("{}={}", dataset.key_columns[c], value);
  }
  return out;
}

KeyLabels::KeyLabels(const Dataset& dataset, const std::vector<std::size_t>& kernels, bool shorten)
    : dataset_(dataset),
      skip_(shorten ? shared_columns(dataset, kernels)
                    : std::vector<bool>(dataset.key_columns.size(), false)) {}

std::string KeyLabels::label(const Kernel& kernel) const {
  std::string label = key_text(dataset_, kernel, skip_);
  return label.empty() ? "(all)" : label;
}

std::string KeyLabels::shared(const Kernel& any) const {
  std::vector<bool> keep(skip_.size());
  for (std::size_t c = 0; c < skip_.size(); ++c) keep[c] = !skip_[c];
  return key_text(dataset_, any, keep);
}

std::vector<std::size_t> all_kernels(const Dataset& dataset) {
  std::vector<std::size_t> all(dataset.kernels.size());
  for (std::size_t k = 0; k < all.size(); ++k) all[k] = k;
  return all;
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

std::string measured_text(const ClassModel& model) {
  const auto& points = model.points;
  std::vector<std::string> measured;
  for (const PointSummary& p : points) {
    measured.push_back(
        fmt::format("{} at {}", format_significant(p.value, 4), format_significant(p.param, 6)));
  }
  std::string text = fmt::format("{}", fmt::join(measured, ", "));
  if (points.size() > 1 && points.front().value != 0.0) {
    text +=
        fmt::format(" (x{})", format_significant(points.back().value / points.front().value, 3));
  }
  return text;
}

std::string no_model_text(const ClassModel& model, std::size_t max_points) {
  if (model.points.empty() || model.points.size() > max_points) return "no model";
  return "no model; measured " + measured_text(model);
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

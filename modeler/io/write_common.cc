#include "modeler/io/write_common.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <sstream>
#include <stdexcept>

namespace ompscale::modeler::io_detail {

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

}  // namespace ompscale::modeler::io_detail

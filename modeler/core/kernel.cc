#include "modeler/core/kernel.h"

#include <fmt/format.h>

#include <algorithm>
#include <span>
#include <unordered_map>

#include "common/error.h"

namespace ompscale::modeler {

namespace {
constexpr char kKeySeparator = '\x1f';  // ASCII unit separator: never part of a key value
}

Kernel Kernel::from_samples(const std::vector<std::string>& key_values,
                            std::vector<Sample> samples) {
  Kernel k;
  for (std::size_t i = 0; i < key_values.size(); ++i) {
    if (i > 0) k.key_ += kKeySeparator;
    k.key_ += key_values[i];
  }
  std::stable_sort(samples.begin(), samples.end(),
                   [](const Sample& a, const Sample& b) { return a.param < b.param; });
  std::vector<double> params;
  std::vector<double> begins;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (i == 0 || samples[i].param != samples[i - 1].param) {
      params.push_back(samples[i].param);
      begins.push_back(static_cast<double>(i));
    }
  }
  k.points_ = params.size();
  if (k.points_ == 0) return k;
  begins.push_back(static_cast<double>(samples.size()));
  k.data_.reserve(params.size() + begins.size() + samples.size());
  k.data_.insert(k.data_.end(), params.begin(), params.end());
  k.data_.insert(k.data_.end(), begins.begin(), begins.end());
  for (const Sample& sample : samples) k.data_.push_back(sample.value);
  return k;
}

Kernel Kernel::from_points(const std::vector<std::string>& key_values, std::size_t dimensions,
                           const std::vector<double>& flat) {
  if (dimensions == 1) {
    std::vector<Sample> samples;
    samples.reserve(flat.size() / 2);
    for (std::size_t i = 0; i + 1 < flat.size(); i += 2) samples.push_back({flat[i], flat[i + 1]});
    return from_samples(key_values, std::move(samples));
  }
  const std::size_t stride = dimensions + 1;
  const std::size_t count = flat.size() / stride;
  std::vector<std::size_t> order(count);
  for (std::size_t i = 0; i < count; ++i) order[i] = i;
  const auto coordinates = [&](std::size_t i) {
    return std::span<const double>(flat).subspan(i * stride, dimensions);
  };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const auto ca = coordinates(a);
    const auto cb = coordinates(b);
    return std::lexicographical_compare(ca.begin(), ca.end(), cb.begin(), cb.end());
  });
  std::vector<std::size_t> starts;  // index into order where each point begins
  for (std::size_t i = 0; i < count; ++i) {
    if (i == 0 || !std::equal(coordinates(order[i]).begin(), coordinates(order[i]).end(),
                              coordinates(order[i - 1]).begin())) {
      starts.push_back(i);
    }
  }
  Kernel k;
  for (std::size_t i = 0; i < key_values.size(); ++i) {
    if (i > 0) k.key_ += kKeySeparator;
    k.key_ += key_values[i];
  }
  k.dimensions_ = dimensions;
  k.points_ = starts.size();
  if (k.points_ == 0) return k;
  k.data_.reserve(k.points_ * dimensions + k.points_ + 1 + count);
  for (std::size_t d = 0; d < dimensions; ++d) {
    for (std::size_t start : starts) k.data_.push_back(coordinates(order[start])[d]);
  }
  for (std::size_t start : starts) k.data_.push_back(static_cast<double>(start));
  k.data_.push_back(static_cast<double>(count));
  for (std::size_t i : order) k.data_.push_back(flat[i * stride + dimensions]);
  return k;
}

void Kernel::absorb(const Kernel& other) {
  std::vector<double> flat;
  flat.reserve((sample_count() + other.sample_count()) * (dimensions_ + 1));
  for (const Kernel* k : {static_cast<const Kernel*>(this), &other}) {
    for (std::size_t i = 0; i < k->size(); ++i) {
      for (double v : k->repetitions(i)) {
        for (std::size_t d = 0; d < dimensions_; ++d) flat.push_back(k->coordinate(i, d));
        flat.push_back(v);
      }
    }
  }
  std::string key = std::move(key_);
  *this = from_points({}, dimensions_, flat);
  key_ = std::move(key);
}

std::vector<std::string_view> Kernel::key_values() const {
  std::vector<std::string_view> out;
  std::string_view rest = key_;
  while (true) {
    const auto pos = rest.find(kKeySeparator);
    out.push_back(rest.substr(0, pos));
    if (pos == std::string_view::npos) break;
    rest.remove_prefix(pos + 1);
  }
  return out;
}

std::string_view Kernel::key_value(std::size_t column) const {
  const auto values = key_values();
  return column < values.size() ? values[column] : std::string_view();
}

std::string Dataset::describe(const Kernel& kernel) const {
  std::string out;
  const auto values = kernel.key_values();
  for (std::size_t i = 0; i < key_columns.size() && i < values.size(); ++i) {
    if (values[i].empty()) continue;
    if (!out.empty()) out += ' ';
    out += fmt::format("{}={}", key_columns[i], values[i]);
  }
  return out;
}

void Dataset::append(Dataset other) {
  if (kernels.empty() && key_columns.empty()) {
    *this = std::move(other);
    return;
  }
  if (other.parameter != parameter || other.parameters != parameters) {
    throw UsageError(
        fmt::format("inputs model different parameters ('{}' and '{}'); fit them separately",
                    fmt::join(parameter_names(), ","), fmt::join(other.parameter_names(), ",")));
  }
  if (other.key_columns != key_columns) {
    throw UsageError(
        fmt::format("inputs have different key columns ({} and {}); fit them separately",
                    fmt::join(key_columns, ","), fmt::join(other.key_columns, ",")));
  }
  skipped_invalid += other.skipped_invalid;
  for (const auto& [key, n] : other.skipped_invalid_by_key) skipped_invalid_by_key[key] += n;
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < kernels.size(); ++i) index.emplace(kernels[i].joined_key(), i);
  for (auto& k : other.kernels) {
    const auto found = index.find(k.joined_key());
    if (found != index.end()) {
      kernels[found->second].absorb(k);
    } else {
      index.emplace(k.joined_key(), kernels.size());
      kernels.push_back(std::move(k));
    }
  }
  for (auto& s : other.sources) sources.push_back(std::move(s));
}

}  // namespace ompscale::modeler

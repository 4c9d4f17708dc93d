#include "modeler/kernel.h"

#include <fmt/format.h>

#include <algorithm>
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

void Kernel::absorb(const Kernel& other) {
  std::vector<Sample> samples;
  samples.reserve(sample_count() + other.sample_count());
  for (const Kernel* k : {static_cast<const Kernel*>(this), &other}) {
    for (std::size_t i = 0; i < k->size(); ++i) {
      for (double v : k->repetitions(i)) samples.push_back({k->param(i), v});
    }
  }
  std::string key = std::move(key_);
  *this = from_samples({}, std::move(samples));
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
  if (other.parameter != parameter) {
    throw UsageError(
        fmt::format("inputs model different parameters ('{}' and '{}'); fit them separately",
                    parameter, other.parameter));
  }
  if (other.key_columns != key_columns) {
    throw UsageError(
        fmt::format("inputs have different key columns ({} and {}); fit them separately",
                    fmt::join(key_columns, ","), fmt::join(other.key_columns, ",")));
  }
  skipped_invalid += other.skipped_invalid;
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

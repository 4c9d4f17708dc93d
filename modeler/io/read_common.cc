#include "modeler/io/read_common.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "common/error.h"
#include "common/text.h"

namespace ompscale::modeler::io_detail {

namespace {
constexpr char kKeySeparator = '\x1f';  // the separator Kernel uses; cannot be part of a value

template <typename Word>
Word load(const char* p) {
  Word word;
  std::memcpy(&word, p, sizeof word);
  return word;
}

// Equality of two key values, called for every key value of every row: values are short, and
// comparing them a machine word at a time (the last word overlapping) beats both a byte loop and a
// memcmp call.
bool same_text(std::string_view a, std::string_view b) {
  const std::size_t n = a.size();
  if (n != b.size()) return false;
  const char* p = a.data();
  const char* q = b.data();
  if (n >= 8) {
    for (std::size_t i = 0; i + 8 < n; i += 8) {
      if (load<std::uint64_t>(p + i) != load<std::uint64_t>(q + i)) return false;
    }
    return load<std::uint64_t>(p + n - 8) == load<std::uint64_t>(q + n - 8);
  }
  if (n >= 4) {
    return load<std::uint32_t>(p) == load<std::uint32_t>(q) &&
           load<std::uint32_t>(p + n - 4) == load<std::uint32_t>(q + n - 4);
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (p[i] != q[i]) return false;
  }
  return true;
}

}  // namespace

KernelCollector::KernelCollector(std::string file, std::size_t key_width)
    : file_(std::move(file)), key_width_(key_width) {}

std::size_t KernelCollector::kernel(std::span<const std::string_view> key_values,
                                    std::size_t line) {
  // Rows of one kernel mostly come in runs: compare with the last kernel's key before hashing.
  if (!samples_.empty()) {
    const std::vector<std::string>& last = key_values_[last_index_];
    if (std::equal(key_values.begin(), key_values.end(), last.begin(), last.end(), same_text)) {
      return last_index_;
    }
  }
  joined_.clear();
  for (std::size_t i = 0; i < key_values.size(); ++i) {
    if (i > 0) joined_ += kKeySeparator;
    joined_ += key_values[i];
  }
  auto found = index_by_key_.find(joined_);
  if (found == index_by_key_.end()) {
    // Checked only for new kernels: a value with a separator in it can only collide with another
    // key that has one too, and that key was refused when it was new.
    for (const std::string_view value : key_values) {
      if (value.find(kKeySeparator) != std::string_view::npos) {
        throw InputError(
            file_, line,
            fmt::format("key value {:?} contains the control character 0x1f", std::string(value)));
      }
    }
    found = index_by_key_.emplace(joined_, samples_.size()).first;
    key_values_.emplace_back(key_values.begin(), key_values.end());
    key_values_.back().resize(key_width_);
    samples_.emplace_back();
    points_.emplace_back();
  }
  last_index_ = found->second;
  return last_index_;
}

Dataset KernelCollector::finish(std::string parameter, std::vector<std::string> key_columns) {
  Dataset dataset;
  dataset.parameter = std::move(parameter);
  dataset.key_columns = std::move(key_columns);
  dataset.sources.push_back(file_);
  dataset.kernels.reserve(samples_.size());
  for (std::size_t i = 0; i < samples_.size(); ++i) {
    dataset.kernels.push_back(Kernel::from_samples(key_values_[i], std::move(samples_[i])));
  }
  index_by_key_.clear();
  key_values_.clear();
  samples_.clear();
  points_.clear();
  return dataset;
}

Dataset KernelCollector::finish(std::vector<std::string> key_columns) {
  if (parameters_.size() < 2) return finish(parameters_.at(0), std::move(key_columns));
  Dataset dataset;
  dataset.parameter = parameters_.front();
  dataset.parameters = parameters_;
  dataset.key_columns = std::move(key_columns);
  dataset.sources.push_back(file_);
  for (std::size_t i = 0; i < points_.size(); ++i) {
    dataset.kernels.push_back(Kernel::from_points(key_values_[i], parameters_.size(), points_[i]));
  }
  index_by_key_.clear();
  key_values_.clear();
  samples_.clear();
  points_.clear();
  return dataset;
}

std::optional<double> parse_number(std::string_view token) {
  return parse_double(trim(token));
}

double check_value(double value, std::string_view what, const std::string& file, std::size_t line) {
  if (!std::isfinite(value)) {
    throw InputError(file, line, fmt::format("{} {} is not a finite number", what, value));
  }
  return value;
}

double check_param(double value, std::string_view parameter, const std::string& file,
                   std::size_t line, std::string_view where) {
  if (!std::isfinite(value) || value <= 0) {
    throw InputError(file, line,
                     fmt::format("{}{}{} = {} is not a positive finite number (thread counts and "
                                 "parameter values must be > 0)",
                                 where, where.empty() ? "" : ": ", parameter, value));
  }
  return value;
}

double parse_value(std::string_view token, std::string_view what, const std::string& file,
                   std::size_t line) {
  const auto value = parse_number(token);
  if (!value) {
    throw InputError(file, line, fmt::format("{} {:?} is not a number", what, std::string(token)));
  }
  return check_value(*value, what, file, line);
}

double parse_param(std::string_view token, std::string_view parameter, const std::string& file,
                   std::size_t line) {
  const auto value = parse_number(token);
  if (!value) {
    throw InputError(file, line,
                     fmt::format("{} {:?} is not a number", parameter, std::string(token)));
  }
  return check_param(*value, parameter, file, line);
}

}  // namespace ompscale::modeler::io_detail

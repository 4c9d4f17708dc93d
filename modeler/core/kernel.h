#pragma once
// Measurements as the modeler sees them: kernels (one construct/metric/binding/... combination)
// with repeated values at each value of their parameter (the thread count), or at each point of
// several parameters (threads and array size, Extra-P's multi-parameter experiments).

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ompscale::modeler {

/// One measured value at one parameter value.
struct Sample {
  double param;
  double value;
};

/// The repetitions of one kernel at each value of its parameter, parameter values ascending (with
/// several parameters: at each point, points in lexicographic order). Stored flat (one key
/// string, one value array) so a kernel costs a few hundred bytes.
class Kernel {
 public:
  Kernel() = default;

  /// Groups samples by parameter value (ascending; repetitions keep their input order).
  /// `key_values` are the values of Dataset::key_columns, in that order.
  static Kernel from_samples(const std::vector<std::string>& key_values,
                             std::vector<Sample> samples);
  /// The same for `dimensions` parameters: `flat` holds one measurement after the other, each
  /// as its `dimensions` parameter values followed by the value.
  static Kernel from_points(const std::vector<std::string>& key_values, std::size_t dimensions,
                            const std::vector<double>& flat);

  /// The key values, in the order of Dataset::key_columns.
  std::vector<std::string_view> key_values() const;
  std::string_view key_value(std::size_t column) const;

  /// Number of distinct parameter values (points).
  std::size_t size() const { return points_; }
  bool empty() const { return points_ == 0; }
  /// Number of parameters (1 for a thread count alone).
  std::size_t dimensions() const { return dimensions_; }
  /// The point's value of the first parameter.
  double param(std::size_t point) const { return data_[point]; }
  std::span<const double> params() const { return {data_.data(), points_}; }
  /// The point's value of parameter `dimension`.
  double coordinate(std::size_t point, std::size_t dimension) const {
    return data_[dimension * points_ + point];
  }
  /// All repetitions measured at params()[point].
  std::span<const double> repetitions(std::size_t point) const {
    const auto first = static_cast<std::size_t>(data_[offsets() + point]);
    const auto last = static_cast<std::size_t>(data_[offsets() + point + 1]);
    return std::span<const double>(data_).subspan(values_offset() + first, last - first);
  }
  std::size_t sample_count() const {
    return points_ == 0 ? 0 : static_cast<std::size_t>(data_[offsets() + points_]);
  }

  /// The repetitions of `other` (a kernel with the same key) added to this kernel's.
  void absorb(const Kernel& other);
  /// The same key with the points whose index `keep` accepts, over all parameters.
  template <class Predicate>
  Kernel points_where(Predicate keep) const {
    std::vector<double> flat;
    for (std::size_t i = 0; i < size(); ++i) {
      if (!keep(i)) continue;
      for (double v : repetitions(i)) {
        for (std::size_t d = 0; d < dimensions(); ++d) flat.push_back(coordinate(i, d));
        flat.push_back(v);
      }
    }
    std::vector<std::string> key;
    for (std::string_view part : key_values()) key.emplace_back(part);
    return from_points(key, dimensions(), flat);
  }
  /// The key values joined, for comparing keys.
  const std::string& joined_key() const { return key_; }

 private:
  std::size_t offsets() const { return dimensions_ * points_; }
  std::size_t values_offset() const { return offsets() + points_ + 1; }

  std::string key_;  // key values joined by kKeySeparator
  // One allocation per kernel: the parameter values (points_ per parameter, one parameter after
  // the other), then where each point's repetitions start and end (points_ + 1 offsets, exact as
  // doubles), then the repetitions.
  std::vector<double> data_;
  std::size_t points_ = 0;
  std::size_t dimensions_ = 1;
};

/// Kernels read from one or more inputs.
struct Dataset {
  /// Name of the modeled parameter as the input spells it ("t", "threads", "x", "p").
  std::string parameter = "t";
  /// Columns that identify a kernel, e.g. {"construct", "metric", "bind"} or
  /// {"callpath", "metric"} for Extra-P inputs.
  std::vector<std::string> key_columns;
  std::vector<Kernel> kernels;
  /// Where the data came from (file names), for reports.
  std::vector<std::string> sources;
  /// Rows with valid=0 that were not used (see ReadOptions::include_invalid).
  std::size_t skipped_invalid = 0;
  /// With several parameters, all their names (parameters[0] == parameter); empty with one.
  std::vector<std::string> parameters;
  /// The same per kernel key (Kernel::joined_key), so a selection of kernels counts its own.
  std::unordered_map<std::string, std::size_t> skipped_invalid_by_key;

  std::size_t dimensions() const { return parameters.empty() ? 1 : parameters.size(); }
  /// The parameter names, also with one parameter.
  std::vector<std::string> parameter_names() const {
    return parameters.empty() ? std::vector<std::string>{parameter} : parameters;
  }
  /// "construct=barrier bind=spread": the kernel's key as a person reads it.
  std::string describe(const Kernel& kernel) const;
  /// Appends another dataset's kernels; a kernel whose key is already present gets the other's
  /// repetitions added (two runs of one sweep pool their values). Throws UsageError when the
  /// parameter or key columns differ.
  void append(Dataset other);
};

}  // namespace ompscale::modeler

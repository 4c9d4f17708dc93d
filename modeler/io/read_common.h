#pragma once
// Pieces shared by the input readers (internal to modeler/io): collecting samples into kernels in
// first-seen order, parsing numbers, and the per-format entry points readers.cc dispatches to.
// Every function here expects `content` without a UTF-8 byte order mark.

#include <cstddef>
#include <istream>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/text.h"
#include "modeler/core/kernel.h"
#include "modeler/io/readers.h"

namespace ompscale::modeler::io_detail {

/// Collects samples per kernel key, remembering the order in which keys first appear. A sample of
/// the same kernel as the one before costs a comparison of its key values, which is what tidy CSV
/// files and Extra-P's region blocks mostly are; any other costs one hash lookup.
class KernelCollector {
 public:
  KernelCollector(std::string file, std::size_t key_width);

  /// Index of the kernel with these key values (exactly key_width of them), added when new.
  /// `line` is only for the error a key value with an ASCII unit separator (0x1f) raises.
  std::size_t kernel(std::span<const std::string_view> key_values, std::size_t line);
  void add(std::size_t kernel, double param, double value) {
    samples_[kernel].push_back({param, value});
  }
  /// A measurement at a point of several parameters (set_parameters() first).
  void add(std::size_t kernel, std::span<const double> point, double value) {
    std::vector<double>& flat = points_[kernel];
    flat.insert(flat.end(), point.begin(), point.end());
    flat.push_back(value);
  }
  /// Several parameters: their names, before the first measurement is added.
  void set_parameters(std::vector<std::string> names) { parameters_ = std::move(names); }

  std::size_t kernel_count() const { return samples_.size(); }
  /// The dataset of everything collected; the collector is left empty.
  Dataset finish(std::string parameter, std::vector<std::string> key_columns);
  /// The same with the names given to set_parameters().
  Dataset finish(std::vector<std::string> key_columns);

 private:
  std::string file_;
  std::size_t key_width_;
  std::unordered_map<std::string, std::size_t> index_by_key_;
  std::vector<std::vector<std::string>> key_values_;
  std::vector<std::vector<Sample>> samples_;
  std::vector<std::string> parameters_;      // with several parameters
  std::vector<std::vector<double>> points_;  // per kernel: point, value, point, value, ...
  std::string joined_;                       // reused buffer for the key being looked up
  std::size_t last_index_ = 0;
};

/// `token` (surrounding blanks ignored, a leading '+' allowed) as a double; nullopt when it is not
/// entirely a number. "inf" and "nan" parse; callers decide whether they are acceptable.
std::optional<double> parse_number(std::string_view token);

/// A finite measured value; InputError naming `what` and the token otherwise.
double parse_value(std::string_view token, std::string_view what, const std::string& file,
                   std::size_t line);
/// A finite, positive parameter value (thread counts and problem sizes are > 0); InputError
/// naming the parameter and the token otherwise.
double parse_param(std::string_view token, std::string_view parameter, const std::string& file,
                   std::size_t line);
/// The same checks for values that arrive as numbers (JSON).
double check_value(double value, std::string_view what, const std::string& file, std::size_t line);
/// `where` (optional) says where in a JSON document the value is, since such errors have no line.
double check_param(double value, std::string_view parameter, const std::string& file,
                   std::size_t line, std::string_view where = {});

Dataset read_csv_table(std::string_view content, const std::string& file, InputFormat format,
                       const ReadOptions& options);
/// The same from a stream, block by block: a large table is never held whole in memory.
Dataset read_csv_table(std::istream& in, const std::string& file, InputFormat format,
                       const ReadOptions& options);
Dataset read_extrap_text(std::string_view content, const std::string& file);
/// The same, line by line from a stream, so a large file is never held whole in memory.
Dataset read_extrap_text(std::istream& in, const std::string& file);
Dataset read_extrap_json(std::string_view content, const std::string& file);
Dataset read_extrap_json_lines(std::string_view content, const std::string& file);

}  // namespace ompscale::modeler::io_detail

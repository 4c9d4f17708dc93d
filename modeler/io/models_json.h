#pragma once
// models.json: the modeler's results in full, for other tools and for later `modeler predict`,
// `plot` and `compare` runs (docs/output-formats.md, "models.json").
//
//   {"ompscale_version": "0.1.0 (git ...)", "parameter": "t", "key_columns": ["construct"],
//    "sources": ["results.csv"], "options": {...},
//    "kernels": [{"key": {"construct": "barrier"}, "class_decision": "",
//                 "models": [{"class": "all", "model": "0.5 + 0.25 * t^(3/2)",
//                             "terms": [{"coefficient": 0.25, "exponent": "3/2",
//                                        "exponent_value": 1.5, "log_exponent": 0}], ...}]}]}
//
// Doubles are written so they read back bit for bit; NaN and infinities (an adjusted R^2 of a
// constant series, for example) are written as null and read back as NaN.

#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "common/json_input.h"
#include "common/json_stream.h"
#include "modeler/core/kernel.h"
#include "modeler/core/result.h"

namespace ompscale::modeler {

/// A models file in memory: what format_models_json() writes and read_models_json() returns.
struct ModelsFile {
  /// The ompscale version that wrote the file (empty for results not read from a file).
  std::string ompscale_version;
  /// The "options" object, serialized as JSON text: whatever the writer's caller recorded about
  /// how the models were made. Opaque to the writer and reader.
  std::string options_json = "{}";
  /// Parameter, key columns and sources. Each kernel carries its key values only, without
  /// samples: the file keeps the aggregated points (ClassModel::points), not the repetitions.
  Dataset dataset;
  /// One result per kernel, in file order; results[i].kernel == i.
  std::vector<KernelResult> results;
};

/// Writes a models.json document kernel by kernel, so that a large fit never holds the whole
/// document (nor every result): construct (writes the header), add() each result in order,
/// finish(). The text is the one format_models_json() returns for the same results.
class ModelsJsonWriter {
 public:
  /// Throws std::invalid_argument when `options_json` is not a JSON object.
  ModelsJsonWriter(std::ostream& out, const Dataset& dataset, std::string_view options_json);
  void add(const KernelResult& result);
  /// The same in two steps, so the text can be made in parallel: format() returns a result's
  /// text (safe to call from several threads at once), add_formatted() writes it; texts are
  /// added in kernel order.
  std::string format(const KernelResult& result) const;
  void add_formatted(std::string_view text);
  void finish();

 private:
  std::ostream& out_;
  const Dataset& dataset_;
  JsonStream json_;  ///< the "kernels" array
};

/// The models of `results` as a models.json document (two-space indentation, final newline).
/// `options_json` must be a JSON object; it is embedded as "options". Each result's `kernel`
/// indexes `dataset.kernels`. Throws std::invalid_argument when `options_json` is not an object.
std::string format_models_json(const Dataset& dataset, const std::vector<KernelResult>& results,
                               std::string_view options_json = "{}");
/// The same for a file read back (its options are kept; the version is the writer's).
std::string format_models_json(const ModelsFile& file);

/// Reads a models.json file; "-" reads standard input. Throws InputError(path, line, cause) for
/// files that are not JSON (with the line of the syntax error) or miss a required field (naming
/// the field and the kernel's index, e.g. "kernels[3].models[0]: missing field 'constant'").
ModelsFile read_models_json(const std::string& path);
/// Parses models.json text; `name` is the file name used in error messages.
ModelsFile parse_models_json(std::string_view text, const std::string& name);

namespace io_detail {
/// A predictive distribution and fit statistics as models.json writes them, for the writer of
/// several parameters; and read back (InputError naming the field when bad).
std::string predictive_json(const PredictiveDistribution& distribution);
PredictiveDistribution read_predictive(const OrderedJsonNode& node);
std::string statistics_json(const FitStatistics& statistics);
FitStatistics read_statistics(const OrderedJsonNode& node);
}  // namespace io_detail

}  // namespace ompscale::modeler

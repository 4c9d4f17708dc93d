#pragma once
// Input readers: turn measurement files into a Dataset of kernels. docs/input-formats.md shows
// each format with an example.
//
//   format           --input-format  parameter          kernel key
//   ompbench CSV     ompbench        threads            every column that is not per-measurement
//   generic CSV      csv             --param COLUMN     --key COLUMNS (none: one kernel)
//   Extra-P text     extrap          its PARAMETER      callpath, metric
//   Extra-P JSON     extrap-json     its parameter      callpath, metric
//   Extra-P JSONL    jsonl           its "params" key   callpath, metric
//
// Every reader returns the kernels in the order their first value appears in the input, with the
// repetitions grouped per parameter value (Kernel::from_samples). A reader either returns the whole
// input or throws: InputError("FILE:LINE: cause") for content it cannot use (malformed syntax,
// non-numeric or non-finite values, parameter values <= 0, an empty input), UsageError for options
// that do not fit together. Inputs with several parameters (Extra-P's, or CSV with --param a,b)
// give kernels of several dimensions and a Dataset with `parameters`.

#include <string>
#include <string_view>
#include <vector>

#include "modeler/core/kernel.h"

namespace ompscale::modeler {

enum class InputFormat {
  kAuto,             ///< decide from the options and the content (see parse_dataset)
  kOmpbenchCsv,      ///< results.csv written by ompbench (docs/design.md, "The results file")
  kGenericCsv,       ///< any CSV table; ReadOptions name its parameter, value and key columns
  kExtrapText,       ///< Extra-P's text format (PARAMETER / POINTS / REGION / METRIC / DATA)
  kExtrapJson,       ///< Extra-P's JSON format (the id-based one and the newer nested one)
  kExtrapJsonLines,  ///< Extra-P's JSON Lines format, one measurement object per line
};

/// The --input-format spelling: "auto", "ompbench", "csv", "extrap", "extrap-json", "jsonl".
/// Throws UsageError listing these for anything else.
InputFormat parse_input_format(std::string_view name);
/// The inverse of parse_input_format ("jsonl" for kExtrapJsonLines).
std::string_view input_format_name(InputFormat format);

struct ReadOptions {
  /// kAuto picks the generic CSV reader when param_column or value_column is set, otherwise
  /// detects the format from the content.
  InputFormat format = InputFormat::kAuto;
  /// Generic CSV only (--param, --value, --key): the column holding the parameter (e.g. the
  /// thread count), the column holding the measured value, and the columns that together name a
  /// kernel. The first two are required for generic CSV; no key columns make the whole table one
  /// kernel. Setting any of them for another explicit format is a UsageError.
  std::string param_column = {};
  std::string value_column = {};
  std::vector<std::string> key_columns = {};
  /// Use rows marked valid=0 as well (CSV inputs with a `valid` column). By default they are
  /// skipped and counted in Dataset::skipped_invalid.
  bool include_invalid = false;
};

/// Whether an ompbench results column varies between the measurements of one kernel (threads,
/// thread_class, rep, value, valid, canary_ns, run_id, timestamp, oversubscribed). Every other
/// column, including any a file adds, is part of the kernel's key.
bool is_per_measurement_column(std::string_view column);

/// Reads the file at `path` ("-" reads standard input, named "<stdin>" in messages).
Dataset read_dataset(const std::string& path, const ReadOptions& options);

/// Reads `content`; `name` is the file name used in messages and Dataset::sources.
///
/// With InputFormat::kAuto and no column options the content decides:
///   - a '{' whose first line is an object with "params"            -> Extra-P JSON Lines
///   - a '{' starting a document with "callpaths"/"coordinates"
///     (or "parameters" and "measurements")                         -> Extra-P JSON
///   - a first keyword PARAMETER (after '#' comment lines)          -> Extra-P text
///   - a CSV header with construct, threads and value columns       -> ompbench CSV
/// Anything else is an InputError naming the formats tried and the options (--param, --value,
/// --key) that select the generic CSV reader.
Dataset parse_dataset(std::string_view content, const std::string& name,
                      const ReadOptions& options);

}  // namespace ompscale::modeler

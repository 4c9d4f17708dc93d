#pragma once
// One row of the results file (docs/design.md, "The results file"): tidy CSV, one measured
// value per row. ompbench's sweeps and `ompbench import-epcc` both produce these.

#include <string>
#include <string_view>
#include <vector>

namespace ompscale::microbench {

struct ResultRow {
  std::string construct;
  std::string method;  // "direct", "epcc"
  std::string metric;  // "min_cost", "overhead", ...
  int threads = 1;
  std::string thread_class;  // e.g. "PO2", from the platform's classes
  std::string bind;          // OMP_PROC_BIND value, "" when unset
  std::string places;        // OMP_PLACES value, "" when unset
  std::string runtime;       // "libgomp", "libomp"
  std::string runtime_version;
  std::string compiler;  // "gcc-12.2.0"
  std::string platform;  // platform name (description or detected)
  std::string param;     // parameter name, "" when none
  std::string param_value;
  int rep = 0;
  double value = 0;       // in `unit`
  std::string unit = "us";
  bool valid = true;
  double canary_ns = 0;   // noise canary of the batch this value belongs to (0 = not measured)
  std::string run_id;
  std::string timestamp;  // ISO 8601 UTC, e.g. 2026-11-22T01:02:03Z
  bool oversubscribed = false;  // threads > hardware threads
};

/// The header line of the results file, "construct,method,...,oversubscribed\n".
const std::string& results_header();

/// The row as one CSV line ending in "\n", columns in results_header() order. Values are written
/// with enough digits to round-trip at 0.1 ns (%.6g would lose digits of large values).
std::string format_row(const ResultRow& row);

}  // namespace ompscale::microbench

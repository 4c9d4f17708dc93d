#pragma once
// An ompbench results CSV (docs/input-formats.md, "ompbench CSV") as history runs: one BenchRun
// per run_id, each with one summary per configuration (series key, thread count, runtime version,
// compiler) holding its valid repetitions, and the facts of the run's sidecar record
// (read_sidecar.h) when FILE.meta.json has one.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "dashboard/ingest/read_sidecar.h"
#include "dashboard/store/records.h"

namespace ompscale::dashboard {

/// Whether a CSV header names the columns a results file must have: construct, threads, value,
/// valid and run_id.
bool is_results_header(const std::vector<std::string_view>& header);

/// The runs of results CSV `text` (named `file` in errors and as each run's source), in the
/// order their first row appears. Rows with an empty run_id (`ompbench import-epcc` without
/// --run-id) are one run, "import-" and a hash of its rows. A run without a sidecar start or
/// timestamps is dated `fallback_date`, with a note saying so. InputError "FILE:LINE: cause" for a
/// row with the wrong number of fields, a thread count that is not a positive integer, a `valid`
/// other than 0 or 1, a valid row whose value is not a finite number, or a run without any date
/// (no sidecar start, no timestamp, no fallback).
std::vector<BenchRun> parse_results(std::string_view text, const std::string& file,
                                    const std::map<std::string, SidecarRun>& sidecar,
                                    const std::string& fallback_date = "");

/// Reads `path` and its sidecar `path.meta.json` (optional).
std::vector<BenchRun> read_results(const std::string& path, const std::string& fallback_date = "");

}  // namespace ompscale::dashboard

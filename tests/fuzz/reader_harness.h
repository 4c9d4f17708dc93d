#pragma once
// What the reader harnesses share: the fuzzer's bytes are the file content, and an InputError is
// the expected answer to bad content (UsageError for --threads, std::runtime_error for a worker
// record, as their contracts say). Any other exception escapes to libFuzzer and is a finding, as
// are crashes and sanitizer reports.
//
// The readers: the modeler's inputs (ompbench_csv, generic_csv, extrap_text, extrap_json,
// extrap_jsonl, models_json), platform descriptions (platform), --threads (thread_counts), EPCC
// output for import-epcc (epcc_import), a results file resumed by ompbench -o (results_resume),
// the driver-worker protocol (worker_records: records and jobs), ompscan report's run files
// (run_file) and the tool's profile inside one, through the report's first steps (profile);
// ompdash's readers of outside input: the ompbench sidecar (sidecar), ompscan's report JSON
// (ompscan_report), models.json as ingest reads it (ingest_models) and the nightly configuration
// (nightly_config).
//
// Each harness runs briefly in CTest (NAME_smoke, from tests/fuzz/corpus/NAME). A long run, from
// the build directory (what it finds goes into the first directory, not into the sources):
//   mkdir -p fuzz-NAME && build/tests/NAME -max_total_time=600 fuzz-NAME tests/fuzz/corpus/NAME

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/error.h"

namespace ompscale::fuzz {

/// Calls `read(content)` with the bytes as a string; an InputError (or `Expected`) is swallowed.
template <typename Expected = InputError, typename Read>
void read_content(const std::uint8_t* data, std::size_t size, Read read) {
  const std::string content(reinterpret_cast<const char*>(data), size);
  try {
    read(content);
  } catch (const Expected&) {
  }
}

}  // namespace ompscale::fuzz

#pragma once
// The driver-worker protocol: what the ompbench driver asks a worker process to measure, and the
// records the worker answers with. Plain text, one item per line, so a job can be written by hand
// to debug a worker (`ompbench-worker --job job.txt`).
//
// Job (driver -> worker):
//   clock tsc|monotonic_raw TICKS_PER_SECOND      (0 = calibrate in the worker)
//   canary EXCHANGES                              (0 = no canary)
//   option NAME VALUE                             (method options, see apply_option)
//   batch ID CONSTRUCT direct|epcc THREADS PARAM_VALUE|- COUNT FIRST_REP
// Records (worker -> driver, tab-separated, stdout):
//   clock SOURCE TSC_INVARIANT TICKS_PER_SECOND STEP_NS READ_COST_NS
//   runtime NAME VERSION COMPILER LIBRARY_PATH HARDWARE_THREADS
//   build COMPILER_FLAGS
//   sample BATCH_ID METRIC REP VALUE_NS VALID
//   unavailable BATCH_ID REASON
//   end BATCH_ID ROUND_TRIP_BEFORE ROUND_TRIP_AFTER COMPUTE_BEFORE COMPUTE_AFTER ELAPSED_MS
//                                              (ns, ns, ns, ns, ms; the batch is complete)
//   calibration THREADS TID OFFSET LOWER UPPER UNCERTAINTY MIN_RT MEDIAN_RT DRIFT_PPM EXCHANGES
//   causality THREADS CHECKS VIOLATIONS WORST_NS
//   window THREADS WINDOW_NS PILOT_LATENCY_NS ROUNDS LATE OVERRUN
//   done
// A batch's samples count only once its `end` arrived: a worker that dies mid-batch loses that
// batch whole, never part of it.

#include <string>
#include <variant>
#include <vector>

#include "microbench/catalogue.h"
#include "microbench/direct.h"
#include "microbench/epcc.h"

namespace ompscale::microbench {

struct JobBatch {
  int id = 0;
  std::string construct;
  Method method = Method::kDirect;
  int threads = 1;
  std::string param_value;  // "" for none
  int count = 0;
  int first_rep = 0;
};

struct Job {
  bool allow_tsc = true;
  double ticks_per_second = 0;
  int canary_exchanges = 200;
  DirectOptions direct;
  EpccOptions epcc;
  std::vector<JobBatch> batches;
};

/// Sets one named method option ("epcc.delay_us", "epcc.test_time_us", "epcc.probes",
/// "epcc.warmup", "direct.warmup", "direct.exchanges", "direct.batches", "direct.skew_ticks"
/// (comma-separated per thread)). Returns false for an unknown name or a bad value.
bool apply_option(Job& job, const std::string& name, const std::string& value);

// The records a worker answers with, typed (the layout is in the comment at the top).
struct SampleRecord {
  int batch = 0;
  std::string metric;
  int rep = 0;
  double value_ns = 0;
  bool valid = false;
};
struct UnavailableRecord {
  int batch = 0;
  std::string reason;
};
/// A batch is complete; its canaries before and after it, the larger of each kept.
struct EndRecord {
  int batch = 0;
  double round_trip_ns = 0;
  double compute_ns = 0;
};
struct RuntimeRecord {
  std::string runtime, version, compiler, library_path;
  int hardware_threads = 0;
};
struct BuildRecord {
  std::string flags;
};
struct ClockRecord {
  std::string source;
  bool tsc_invariant = false;
  double ticks_per_second = 0, step_ns = 0, read_cost_ns = 0;
};
/// calibration, causality and window records: kept as they are for the sidecar.
struct DiagnosticRecord {
  std::string kind;
  std::vector<std::string> fields;  // after the kind
};
/// One worker record; std::monostate for a record the driver does not use (`done`, unknown kinds,
/// a known kind with another number of fields).
using WorkerRecord = std::variant<std::monostate, SampleRecord, UnavailableRecord, EndRecord,
                                  RuntimeRecord, BuildRecord, ClockRecord, DiagnosticRecord>;

/// Parses one line of a worker's stdout. A number field that does not parse (common/text.h
/// syntax) is std::runtime_error naming the record: a worker that writes what the driver cannot
/// read is a bug, not bad input.
WorkerRecord parse_record(const std::string& line);

/// Parses a job; on failure returns false with "line N: cause" in `error`.
bool parse_job(const std::string& text, Job& job, std::string& error);

/// The job as text (what parse_job reads). Options are written by the caller as `option` lines in
/// `options_text` (already formatted), to keep this the only place that knows the layout.
std::string format_job(const Job& job, const std::string& options_text);

}  // namespace ompscale::microbench

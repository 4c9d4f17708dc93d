#pragma once
// The JSON sidecar next to a results file (results.csv.meta.json): the environment of every run
// that wrote into the file, so a result can be reproduced and judged. A resumed run adds its own
// record; earlier records are kept.

#include <map>
#include <string>
#include <vector>

namespace ompscale::microbench {

/// What one worker build reported about itself.
struct WorkerFacts {
  std::string runtime;  // "libgomp"
  std::string runtime_version;
  std::string compiler;
  std::string library_path;
  std::string flags;
  int hardware_threads = 0;
  std::string clock_source;
  bool tsc_invariant = false;
  double ticks_per_second = 0;
  double step_ns = 0;
  double read_cost_ns = 0;
};

/// A calibration record from a worker ("calibration"/"causality"/"window" lines), with the
/// setting and round it came from.
struct CalibrationFacts {
  std::string runtime, bind, places;
  int round = 0;
  std::vector<std::string> fields;  // the record's fields after its kind
  std::string kind;                 // "calibration", "causality", "window"
};

struct RunRecord {
  std::string run_id;
  std::string started, finished;
  std::string status;  // "complete", "incomplete" (budget exhausted), "interrupted", "failed"
  std::vector<std::string> command;
  std::string platform_json;                   // to_json(platform)
  std::string detected_json;                   // to_json(detect_platform())
  std::map<std::string, WorkerFacts> workers;  // by runtime name ("gnu", "llvm")
  std::vector<CalibrationFacts> calibrations;
  // Noise canary and re-measurement.
  double canary_reference_ns = 0;
  double canary_typical_ns = 0;  // the machine's typical state from earlier runs (0 = unknown)
  double waited_seconds = 0;     // waited for the best state
  double machine_lock_waited_seconds = 0;  // waited for other ompbench runs (machine_lock.h)
  double slow_factor = 0;
  int batches = 0;
  int slow_batches = 0;           // judged slow and measured again
  int accepted_slow = 0;          // judged slow with no re-measurement left: kept valid
  int invalid_values = 0;         // valid=0 rows written
  std::vector<double> canary_ns;  // every batch's canary, in order
  double compute_reference_ns = 0;
  double compute_slow_factor = 0;
  std::vector<double> compute_canary_ns;  // every batch's compute canary, in order
  bool oversubscribed = false;
  std::vector<std::string> unavailable;  // "lock_hint_contended on gnu: reason"
  std::vector<std::string> incomplete;   // configurations that ended below --reps valid values
  std::vector<std::string> errors;       // worker failures
  std::vector<std::string> warnings;
};

/// Adds `run` to the sidecar at `path` (creating it), atomically. An existing sidecar that is
/// not ompbench's JSON is an InputError (nothing is overwritten).
void append_run(const std::string& path, const RunRecord& run);

/// Checks that `path`, if it exists, is a sidecar append_run can extend (called before measuring,
/// so a bad sidecar stops the run before any work is done).
void check_sidecar(const std::string& path);

}  // namespace ompscale::microbench

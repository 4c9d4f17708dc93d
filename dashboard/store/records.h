#pragma once
// What the ingest readers produce and the store writes: one ompbench run with its
// per-configuration summaries, one models file, one ompscan report. Plain data; the readers
// (dashboard/ingest/) fill them, dashboard/store/write.h puts them into the history.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ompscale::dashboard {

/// The columns that name a kernel (construct, method, metric, bind, places, runtime, platform,
/// param, param_value, unit, and any extra column of the file), in file order. The runtime's
/// version and the compiler are not part of it: a new runtime build continues the same series.
struct SeriesKey {
  std::vector<std::pair<std::string, std::string>> columns;

  /// The value of `column`, "" when the key has no such column.
  std::string value(std::string_view column) const;
  /// Unambiguous and independent of column order: a JSON object with sorted keys.
  std::string canonical() const;
  /// "construct=barrier method=direct ..." (non-empty values, file order).
  std::string describe() const;
};

/// The columns of a results CSV that are not part of a series key although they are not
/// per-measurement either: they describe the build that was measured.
bool is_build_column(std::string_view column);

/// One configuration (series and thread count) of one run.
struct ConfigSummary {
  SeriesKey key;
  int threads = 0;
  std::string thread_class;
  std::string runtime_version;
  std::string compiler;
  std::size_t total = 0;       ///< rows, valid or not
  std::vector<double> values;  ///< the valid repetitions, in file order
  double canary_ns = 0.0;      ///< median canary round trip of the valid rows (0: not measured)
  /// "typical"; "unusual" (the run measured outside the machine's usual state); "slow" (its
  /// canary above the run's slow factor times the run's reference); "unknown" (no canary).
  std::string canary_state = "unknown";
  bool oversubscribed = false;
};

/// One ompbench run (one run_id of a results file) with what its sidecar says about it.
struct BenchRun {
  std::string run_id;
  std::string host;  ///< from the sidecar; "" without one
  std::string date;  ///< ISO 8601 UTC: the sidecar's start, else the earliest row timestamp
  std::string platform;
  std::string status = "unknown";
  std::string ompscale_version;
  std::string source;       ///< the results file as named on the command line
  std::string fingerprint;  ///< hash of the run's rows and sidecar record
  std::string command_json = "[]";
  std::string workers_json = "{}";
  std::string environment_json = "{}";
  std::vector<std::string> runtimes;   ///< "libgomp 12.2.0", distinct, in first-seen order
  std::vector<std::string> compilers;  ///< "gcc-12.2.0"
  double canary_reference_ns = 0.0;    ///< 0: not known
  double canary_typical_ns = 0.0;
  double canary_median_ns = 0.0;
  double compute_reference_ns = 0.0;
  bool unusual_phase = false;  ///< the sidecar says it measured outside the machine's usual state
  std::string phase_note;
  std::string note;  ///< how the run was read, when a person should know ("" mostly)
  std::vector<ConfigSummary> configs;
};

/// A run named by the identity its results file gives it: run id and host, and its content's
/// fingerprint, which tells apart runs that share an id ("" matches the only run with that id).
struct RunRef {
  std::string run_id;
  std::string host;
  std::string fingerprint;
  bool operator==(const RunRef&) const = default;
};

/// One class model of one kernel, as models.json holds it.
struct ModelRecord {
  SeriesKey key;
  std::string runtime_version;
  std::string compiler;
  std::string thread_class;
  std::string model;  ///< Extra-P notation
  std::string growth;
  bool valid = false;
  bool worse_than_log = false;
  bool noise_dominates = false;
  double adjusted_r2 = 0.0;
  double smape = 0.0;
  double cv_error = 0.0;
  std::size_t points = 0;
  double largest_threads = 0.0;  ///< largest measured thread count (0: none)
  double budget = 0.0;           ///< 0: no budget crossing in the file
  double budget_threads = 0.0;   ///< 0: never crossed up to the search limit
  double budget_threads_early = 0.0;
  double budget_threads_late = 0.0;
  std::string document;  ///< the class model's JSON object, for predictions later
};

/// A models.json file and the runs it was fitted on.
struct ModelSet {
  std::string source;
  std::string fingerprint;
  std::string ompscale_version;
  std::string parameter;
  std::string options_json = "{}";
  std::vector<RunRef> runs;  ///< the runs of its source results files
  std::vector<ModelRecord> models;
};

/// One region (or the whole program, key "(program)") of an ompscan report at one input and
/// thread count.
struct AppPoint {
  std::string input;
  int threads = 0;
  int repetitions = 0;
  double time_s = 0, time_min_s = 0, time_max_s = 0, speedup = 0, efficiency = 0, lost_s = 0;
  double imbalance_s = 0, walkthrough_s = 0, startup_s = 0, lock_contention_s = 0,
         lock_algorithm_s = 0, other_s = 0;
};

struct AppRegion {
  int rank = 0;  ///< 0 for the whole program
  std::string key;
  std::string label;
  std::string kind;
  double potential_gain_s = 0.0;
  std::string model;  ///< the thread model at the reference input ("" without one)
  std::string growth;
  std::string hints_json = "[]";
  std::vector<AppPoint> points;
};

/// An ompscan report (format ompscan-report-1).
struct AppReport {
  std::string source;
  std::string fingerprint;
  std::string application;
  std::string date;
  std::string ompscale_version;
  std::string thread_counts_json = "[]";
  std::string reference_input;
  int runs_analysed = 0;
  int runs_failed = 0;
  std::string pop_json = "[]";
  std::string notes_json = "[]";
  std::vector<AppRegion> regions;
};

/// Everything one `ompdash ingest` read, written in one transaction.
struct IngestBatch {
  std::vector<BenchRun> runs;
  std::vector<ModelSet> model_sets;
  std::vector<AppReport> reports;
};

/// A stable 64-bit hash (FNV-1a) as 16 hex digits: identities of inputs, not security.
class Fingerprint {
 public:
  void add(std::string_view text);
  std::string hex() const;

 private:
  std::uint64_t hash_ = 14695981039346656037ull;
};

std::string fingerprint(std::string_view text);

}  // namespace ompscale::dashboard

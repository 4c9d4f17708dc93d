#pragma once
// Opening the history database and reading it back: runs, series (kernels), per-configuration
// points over time, model sets and application reports, as plain structs for `ompdash list`,
// the regression detection and the site.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "dashboard/store/sqlite.h"

namespace ompscale::dashboard {

/// Opens `path` and brings its schema to the current version (store/schema.h). With
/// `read_only`, the file must exist and have the current version already.
Database open_history(const std::string& path, bool read_only = false);

struct RunInfo {
  std::int64_t id = 0;
  std::string run_id, host, date, label, platform, runtimes, compilers, status, source;
  bool unusual_phase = false;
  std::string phase_note;
  double canary_median_ns = 0;  ///< NaN when unknown
  std::int64_t configurations = 0;
};

/// Every run, oldest first (by date, then run id).
std::vector<RunInfo> list_runs(Database& db);

struct SeriesInfo {
  std::int64_t id = 0;
  std::string key;          ///< canonical (sorted JSON object)
  std::string description;  ///< "construct=barrier method=direct ..." in file order
  std::vector<std::pair<std::string, std::string>> columns;  ///< the key, in file order
  std::string construct, method, metric, bind, places, runtime, platform, param, param_value, unit;
  std::vector<int> threads;  ///< thread counts measured in any run, ascending
  std::int64_t runs = 0;     ///< runs that measured it
};

/// Every series with measurements or models, by construct, runtime, platform, then key.
std::vector<SeriesInfo> list_series(Database& db);

/// One run's summary of one series at one thread count.
struct HistoryPoint {
  std::int64_t run = 0;  ///< RunInfo::id
  std::string run_id, date, label, runtime_version, canary_state;
  bool unusual_phase = false;
  std::int64_t n = 0, total = 0;
  double median = 0, q1 = 0, q3 = 0, min = 0, max = 0, mean = 0, valid_share = 0;
};

/// Points of every (series, thread count) in one pass, for analyses over the whole history.
struct SeriesHistory {
  std::int64_t series = 0;
  int threads = 0;
  std::vector<HistoryPoint> points;  ///< oldest first
};
/// With `metrics`, only the series whose metric is one of them (or empty).
std::vector<SeriesHistory> load_histories(Database& db,
                                          const std::vector<std::string>& metrics = {});

/// The valid repetitions one run measured for a series at a thread count (all runtime builds);
/// empty when they were pruned (`ompdash prune`).
std::vector<double> load_samples(Database& db, std::int64_t run, std::int64_t series, int threads);

/// load_samples() for many reads, with one prepared statement.
class RepetitionReader {
 public:
  explicit RepetitionReader(Database& db);
  std::vector<double> read(std::int64_t run, std::int64_t series, int threads);

 private:
  Statement statement_;
};

/// A kernel's nightly median at one thread count as the analysis reads it: no text, so that a
/// year of a large sweep stays small in memory.
struct LevelPoint {
  std::int64_t run = 0;
  double median = 0;
  std::int64_t n = 0;           ///< valid repetitions
  bool unusual_canary = false;  ///< its canary state is "unusual"
};
struct LevelHistory {
  std::int64_t series = 0;
  int threads = 0;
  std::vector<LevelPoint> points;  ///< oldest first (date, run id, host), one per run
};
/// The histories of the series whose metric is in `metrics` (or empty; every series when
/// `metrics` is empty), by series and thread count.
std::vector<LevelHistory> load_levels(Database& db, const std::vector<std::string>& metrics);

/// One class model of a series in one model set.
struct ModelPoint {
  std::int64_t model_set = 0;
  std::string date, label, runtime_version, thread_class, model, growth, document;
  bool valid = false;
  bool noise_dominates = false;
  std::int64_t points = 0;                      ///< thread counts fitted
  double adjusted_r2 = 0, largest_threads = 0;  ///< NaN: none
  /// The budget and its crossings (NaN: no budget, or never crossed up to the search limit).
  double budget = 0, budget_threads = 0, budget_threads_early = 0, budget_threads_late = 0;
  std::vector<std::int64_t> runs;  ///< the runs it was fitted on
  std::string run_id;              ///< the latest of them
  std::int64_t series = 0;
};

struct ModelHistory {
  std::int64_t series = 0;
  std::string thread_class;
  std::vector<ModelPoint> models;  ///< oldest first
};
/// Every model of every series, by series and class, oldest first. Without `documents`, the class
/// models' JSON objects stay in the database (load_model_document() reads one): a year of a large
/// sweep's models is gigabytes of them.
std::vector<ModelHistory> load_model_histories(Database& db, bool documents = true);

/// The class model's JSON object of `model` ("" when it is not in the history).
std::string load_model_document(Database& db, const ModelPoint& model);

struct ModelSetInfo {
  std::int64_t id = 0;
  std::string date, label, source, parameter;
  std::int64_t models = 0;
};
std::vector<ModelSetInfo> list_model_sets(Database& db);

struct AppReportInfo {
  std::int64_t id = 0;
  std::string application, date, label, source, thread_counts, reference_input;
  std::int64_t regions = 0, runs_analysed = 0, runs_failed = 0;
};
/// Every ompscan report, by application, oldest first.
std::vector<AppReportInfo> list_app_reports(Database& db);

/// One region (or the whole program, "(program)") of one report.
struct AppRegionInfo {
  std::int64_t report = 0;
  int rank = 0;
  std::string key, label, kind, model, growth, hints_json;
  double potential_gain_s = 0;
};
/// The regions of a report, by rank (the program first).
std::vector<AppRegionInfo> load_app_regions(Database& db, std::int64_t report);

struct AppPointInfo {
  std::int64_t report = 0;
  std::string region, input;
  int threads = 0;
  double time_s = 0, time_min_s = 0, time_max_s = 0, speedup = 0, efficiency = 0, lost_s = 0;
  double imbalance_s = 0, walkthrough_s = 0, startup_s = 0, lock_contention_s = 0,
         lock_algorithm_s = 0, other_s = 0;
};
/// The points of every report of `application`, by report date, region, input, threads.
std::vector<AppPointInfo> load_app_points(Database& db, const std::string& application);

}  // namespace ompscale::dashboard

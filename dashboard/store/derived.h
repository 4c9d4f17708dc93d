#pragma once
// What the regression analysis derives from the history (analysis/derivation.h), kept in the
// history itself: every ingest derives it once, in the same transaction, and `regressions` and
// `render` read it instead of deriving it again. Plain records and their tables; which analysis
// fills them is not this file's business.
//
// The derivation is stamped with the options it was made with and the history it was made from
// (its runs and model sets); a reader with other options, or a history changed since, derives
// anew. Two parts outlive a derivation as caches, because they are the costly part and depend on
// nothing the options change: each run's rank test against its baseline runs (reused while the
// baseline is the same runs) and the comparisons of a model with an earlier one (documents parsed,
// refitted, predicted).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "dashboard/store/sqlite.h"

namespace ompscale::dashboard {

/// One run judged against its history (one kernel, one thread count): what the report needs to
/// decide whether it is a regression, once it knows how many comparisons it makes.
struct JudgedRun {
  std::int64_t series = 0;
  int threads = 0;
  std::int64_t run = 0;
  /// The runs whose repetitions formed the baseline ("12,13,14"): the rank test's identity.
  std::string baseline_runs;
  std::int64_t baseline = 0;  ///< runs since the baseline's start (the floor's `b`)
  double before = 0;          ///< geometric mean of the baseline medians
  double after = 0;           ///< the run's median
  double effect = 0;          ///< log(after / before)
  double noise_variance = 0;  ///< the noise estimate it is judged with
  double noise_dof = 0;
  double resolution = 0;  ///< of its and the baseline's repetitions (noise_floor.h)
  double p_value = 1;     ///< the rank test's, before the correction for multiple comparisons
  /// Set by a derivation that found this very row stored already (write_derived skips it).
  bool stored = false;

  bool operator==(const JudgedRun&) const = default;
};

/// A step or drift across a kernel's history (change_points.h), by the runs it starts and ends at.
struct ShiftRecord {
  std::int64_t series = 0;
  int threads = 0;
  std::int64_t first_run = 0;
  std::int64_t last_run = 0;  ///< == first_run for a step
  bool drift = false;
  double before = 0;  ///< log level before
  double after = 0;   ///< log level after
  double p_value = 1;
};

/// A judged kernel's noise floor now.
struct NoiseRecord {
  std::int64_t series = 0;
  int threads = 0;
  std::int64_t runs = 0;  ///< typical-phase runs in its history
  double sigma = 0;       ///< NaN: unknown
  double floor = 0;       ///< NaN: unknown
};

/// A finding about a model set (model_checks.h), all but what its series and set name.
struct ModelFindingRecord {
  std::int64_t model_set = 0;
  std::int64_t series = 0;
  std::string thread_class;
  std::string kind;  ///< to_string(FindingKind)
  bool worse = false;
  double severity = 0;
  int threads = 0;
  double before = 0, after = 0, change = 0, noise_floor = 0, threshold = 0;
  std::string detail;
  /// The set's date and label and the latest of its runs (not stored: read with the set).
  std::string date, label, run_id;
};

/// Everything derived, and what it was derived with and from.
struct Derived {
  std::string options;                             ///< the analysis options (JSON, without `since`)
  std::string history;                             ///< history_fingerprint() when derived
  std::int64_t histories = 0;                      ///< kernel x thread count histories judged
  std::vector<JudgedRun> judged;                   ///< by series, thread count, date
  std::vector<ShiftRecord> shifts;                 ///< by series, thread count, date
  std::vector<NoiseRecord> noise;                  ///< by series, thread count
  std::vector<ModelFindingRecord> model_findings;  ///< in the order they were found
};

/// The stamp of the stored derivation, when there is one.
struct DerivedStamp {
  std::string options;
  std::string history;
  std::int64_t histories = 0;
  std::string derived_at;
};
std::optional<DerivedStamp> read_derived_stamp(Database& db);

/// Identifies the history's content as far as the analysis reads it: its runs and model sets.
std::string history_fingerprint(Database& db);

/// Replaces the stored derivation with `derived` (in the caller's write transaction), writing
/// only the judged runs not marked `stored`.
void write_derived(Database& db, const Derived& derived, const std::string& now);

/// The stored derivation; with `since`, only what is dated on or after it (judged runs, shifts by
/// their first run, model findings by their set), and every kernel's noise.
Derived read_derived(Database& db, const std::string& since = "");

/// The stored judged runs of one history (a kernel at a thread count), by run: the rank tests a
/// new derivation reuses while their baseline is the same runs.
std::map<std::int64_t, JudgedRun> read_judged_history(Database& db, std::int64_t series,
                                                      int threads);

/// A model of one kernel and thread-count class: its set and runtime version.
struct ModelRef {
  std::int64_t model_set = 0;
  std::string runtime_version;
  auto operator<=>(const ModelRef&) const = default;
};

/// The growth check's numbers: SMAPE (percent) of the established model's form refitted to the
/// new model's points (NaN: could not be fitted), and both models' own SMAPE.
struct GrowthComparison {
  double refit_smape = 0, smape = 0, established_smape = 0;
};
/// The interval check's numbers at the new model's largest thread count: the new value there, the
/// previous model's prediction and interval at `level`, and the previous model's own value there
/// (NaN: none).
struct IntervalComparison {
  double value = 0, predicted = 0, low = 0, high = 0, previous_value = 0;
};

/// The comparisons made so far within one kernel's models of one class: by (model, earlier model)
/// and, for intervals, the level.
struct ModelComparisons {
  std::map<std::pair<ModelRef, ModelRef>, GrowthComparison> growth;
  std::map<std::tuple<ModelRef, ModelRef, double>, IntervalComparison> interval;
};
ModelComparisons read_model_comparisons(Database& db, std::int64_t series,
                                        const std::string& thread_class);
/// Adds comparisons (kept across derivations: the models never change).
void write_model_comparisons(Database& db, std::int64_t series, const std::string& thread_class,
                             const ModelComparisons& added);

}  // namespace ompscale::dashboard

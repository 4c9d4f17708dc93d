#pragma once
// The regression analysis of a whole history, everything that does not depend on which nights a
// report is about (docs/ompdash.md, "Regressions"): per judged kernel and thread count the
// change points over its whole history (steps and drifts), every run judged against the runs
// before it (the rank test of its repetitions against its baseline's, the noise it is judged
// with), the kernel's noise floor now; and the checks of every model set. regressions.h makes a
// report of some nights from it, with the correction for the comparisons that report makes.
//
// Every part costs O(n log n) in a history of n nights: change points by E-divisive with each
// segment's splits scored in one pass, noise estimates as of every night from running medians and
// ranked sums, no median or sort per night. Every ingest derives the analysis once and stores it
// with the history (store/derived.h); the rank tests (the repetitions of six runs read and
// ranked) and the model comparisons (documents parsed, refitted and predicted) are reused from one
// derivation to the next, so a night adds only its own.

#include <map>
#include <string>
#include <utility>

#include "dashboard/analysis/regressions.h"
#include "dashboard/store/derived.h"
#include "dashboard/store/sqlite.h"

namespace ompscale::dashboard {

struct DeriveOptions {
  /// Judge only the runs dated on or after this ("": every run). A report of the last night
  /// derived without a stored derivation needs only that night's tests.
  std::string judge_from;
  /// Reuse the stored rank tests whose baseline is the same runs, and the stored model
  /// comparisons; false derives everything from the repetitions and the models' documents (the
  /// repetitions of a run pruned since are then missing, and its test is left out).
  bool reuse_stored = true;
};

struct Derivation {
  Derived derived;
  /// The model comparisons made anew, per kernel (series) and thread-count class.
  std::map<std::pair<std::int64_t, std::string>, ModelComparisons> new_comparisons;
};

/// The analysis of the history in `db` with `options` (`since` is not used).
Derivation derive(Database& db, const RegressionOptions& options, const DeriveOptions& how = {});

/// Derives with `options` and stores the result and the new model comparisons: what every
/// ingest does, inside its write transaction.
void store_derivation(Database& db, const RegressionOptions& options, const std::string& now);

/// The options a derivation is made with, as stored with it: canonical JSON without `since`.
std::string options_key(const RegressionOptions& options);
/// The options of a stored derivation; the defaults when there is none.
RegressionOptions stored_options(Database& db);

/// Whether the stored derivation was made with `options` from the history as it is now.
bool derivation_current(Database& db, const RegressionOptions& options);

}  // namespace ompscale::dashboard

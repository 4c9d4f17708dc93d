#pragma once
// How long the history keeps the repetitions of its runs. The repetitions (every valid value of
// every configuration) are most of a history's weight and serve only the rank tests, which read
// the runs of the latest baselines; the summaries (median, quartiles, ...), the tests already
// made and the findings are kept for ever. `ompdash prune` applies the rule.

#include <cstdint>
#include <string>

#include "dashboard/store/sqlite.h"

namespace ompscale::dashboard {

struct RetentionRule {
  /// The repetitions of runs dated more than this many days before the history's latest run
  /// are removed.
  int older_than_days = 365;
  /// Whatever their age, the repetitions of each kernel's latest `keep_latest` runs at each thread
  /// count stay: the next night's baseline is made of them.
  int keep_latest = 5;
};

struct PruneResult {
  std::string cutoff;     ///< runs dated before this lost their repetitions
  std::int64_t runs = 0;  ///< runs dated before the cut-off
  std::int64_t configurations =
      0;  ///< rows of repetitions removed (run x series x threads x build)
};

/// Applies `rule` in one write transaction. The space is reused by later ingests; vacuum()
/// gives it back to the file system.
PruneResult prune_repetitions(Database& db, const RetentionRule& rule);

/// Rewrites the database file without its free pages (SQLite's VACUUM; not inside a transaction).
void vacuum(Database& db);

}  // namespace ompscale::dashboard

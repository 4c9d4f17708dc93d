// `ompdash derive` and `ompdash prune`: the stored analysis made anew, and the retention rule for
// repetitions.

#include <fmt/format.h>

#include <iostream>

#include "common/error.h"
#include "common/utc_time.h"
#include "dashboard/analysis/derivation.h"
#include "dashboard/cli/commands.h"
#include "dashboard/store/history.h"

namespace ompscale::dashboard {

int run_derive(const DeriveArguments& a) {
  check_regression_options(a.options);
  Database db = open_history(a.db);
  Transaction transaction(db);
  const Derivation d = derive(db, a.options, {.judge_from = "", .reuse_stored = !a.fresh});
  write_derived(db, d.derived, utc_timestamp());
  for (const auto& [key, comparisons] : d.new_comparisons) {
    write_model_comparisons(db, key.first, key.second, comparisons);
  }
  transaction.commit();
  std::cout << fmt::format(
      "{}: derived {} histories ({} judged runs, {} steps and drifts, {} model findings)\n", a.db,
      d.derived.histories, d.derived.judged.size(), d.derived.shifts.size(),
      d.derived.model_findings.size());
  return 0;
}

int run_prune(const PruneArguments& a) {
  if (a.rule.older_than_days < 1 || a.rule.keep_latest < 1) {
    throw UsageError("--older-than and --keep-latest must be at least 1");
  }
  Database db = open_history(a.db);
  const PruneResult r = prune_repetitions(db, a.rule);
  if (a.vacuum) vacuum(db);
  std::cout << fmt::format(
      "{}: repetitions of {} configuration(s) removed from the {} run(s) dated before {}; their "
      "summaries, tests and findings stay{}\n",
      a.db, r.configurations, r.runs, r.cutoff.empty() ? "(no runs)" : r.cutoff,
      a.vacuum ? "; file compacted" : "");
  return 0;
}

}  // namespace ompscale::dashboard

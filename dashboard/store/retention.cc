#include "dashboard/store/retention.h"

#include <fmt/format.h>

namespace ompscale::dashboard {

PruneResult prune_repetitions(Database& db, const RetentionRule& rule) {
  PruneResult result;
  Transaction transaction(db);
  Statement cutoff =
      db.prepare("SELECT coalesce(strftime('%Y-%m-%dT%H:%M:%SZ', max(date), ?), '') FROM runs");
  cutoff.bind_all(fmt::format("-{} days", rule.older_than_days));
  cutoff.step();
  result.cutoff = cutoff.text(0);
  if (result.cutoff.empty()) return result;  // no runs
  Statement old = db.prepare("SELECT count(*) FROM runs WHERE date < ?");
  old.bind_all(result.cutoff).step();
  result.runs = old.integer(0);
  // The latest runs of each kernel and thread count keep theirs: a kernel measured rarely still
  // has a baseline (a run measured with several builds has one rank). The rows to remove are
  // listed and looked up by the primary key; a NOT IN over the rows kept was far slower on large
  // histories.
  db.prepare(
        "DELETE FROM repetitions WHERE (run, series, threads) IN (SELECT run, series, threads "
        "FROM (SELECT m.series, m.threads, m.run, r.date, dense_rank() OVER (PARTITION BY "
        "m.series, m.threads ORDER BY r.date DESC, r.run_id DESC) AS rank FROM summaries m JOIN "
        "runs r ON r.id = m.run) WHERE date < ?1 AND rank > ?2)")
      .bind_all(result.cutoff, rule.keep_latest)
      .run();
  result.configurations = db.changes();
  transaction.commit();
  return result;
}

void vacuum(Database& db) {
  db.exec("VACUUM");
}

}  // namespace ompscale::dashboard

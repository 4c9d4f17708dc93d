#include "dashboard/store/schema.h"

#include <fmt/format.h>

#include <array>

namespace ompscale::dashboard {

namespace {

// Version 1: ompbench runs with per-configuration summaries, models, ompscan reports.
constexpr std::string_view kVersion1 = R"sql(
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL,
  host TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  date TEXT NOT NULL,
  label TEXT NOT NULL,
  platform TEXT NOT NULL,
  runtimes TEXT NOT NULL,
  compilers TEXT NOT NULL,
  ompscale_version TEXT NOT NULL,
  status TEXT NOT NULL,
  source TEXT NOT NULL,
  command TEXT NOT NULL,
  workers TEXT NOT NULL,
  environment TEXT NOT NULL,
  canary_reference_ns REAL,
  canary_typical_ns REAL,
  canary_median_ns REAL,
  compute_reference_ns REAL,
  unusual_phase INTEGER NOT NULL,
  phase_note TEXT NOT NULL,
  ingested_at TEXT NOT NULL,
  UNIQUE (run_id, host)
);
CREATE TABLE series (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  key_json TEXT NOT NULL,
  construct TEXT NOT NULL,
  method TEXT NOT NULL,
  metric TEXT NOT NULL,
  bind TEXT NOT NULL,
  places TEXT NOT NULL,
  runtime TEXT NOT NULL,
  platform TEXT NOT NULL,
  param TEXT NOT NULL,
  param_value TEXT NOT NULL,
  unit TEXT NOT NULL
);
CREATE TABLE summaries (
  run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  series INTEGER NOT NULL REFERENCES series(id),
  threads INTEGER NOT NULL,
  thread_class TEXT NOT NULL,
  runtime_version TEXT NOT NULL,
  compiler TEXT NOT NULL,
  n INTEGER NOT NULL,
  n_total INTEGER NOT NULL,
  median REAL,
  q1 REAL,
  q3 REAL,
  min REAL,
  max REAL,
  mean REAL,
  valid_share REAL NOT NULL,
  canary_ns REAL,
  canary_state TEXT NOT NULL,
  oversubscribed INTEGER NOT NULL,
  samples BLOB NOT NULL,
  PRIMARY KEY (run, series, threads, runtime_version, compiler)
);
CREATE INDEX summaries_by_series ON summaries(series, threads);
CREATE TABLE model_sets (
  id INTEGER PRIMARY KEY,
  fingerprint TEXT NOT NULL UNIQUE,
  date TEXT NOT NULL,
  label TEXT NOT NULL,
  source TEXT NOT NULL,
  ompscale_version TEXT NOT NULL,
  parameter TEXT NOT NULL,
  options TEXT NOT NULL,
  ingested_at TEXT NOT NULL
);
CREATE TABLE model_set_runs (
  model_set INTEGER NOT NULL REFERENCES model_sets(id) ON DELETE CASCADE,
  run INTEGER NOT NULL REFERENCES runs(id),
  PRIMARY KEY (model_set, run)
);
CREATE TABLE models (
  model_set INTEGER NOT NULL REFERENCES model_sets(id) ON DELETE CASCADE,
  series INTEGER NOT NULL REFERENCES series(id),
  runtime_version TEXT NOT NULL,
  compiler TEXT NOT NULL,
  class TEXT NOT NULL,
  model TEXT NOT NULL,
  growth TEXT NOT NULL,
  valid INTEGER NOT NULL,
  worse_than_log INTEGER NOT NULL,
  noise_dominates INTEGER NOT NULL,
  adjusted_r2 REAL,
  smape REAL,
  cv_error REAL,
  points INTEGER NOT NULL,
  largest_threads REAL,
  budget REAL,
  budget_threads REAL,
  budget_threads_early REAL,
  budget_threads_late REAL,
  document TEXT NOT NULL,
  PRIMARY KEY (model_set, series, runtime_version, compiler, class)
);
CREATE INDEX models_by_series ON models(series, class);
CREATE TABLE app_reports (
  id INTEGER PRIMARY KEY,
  fingerprint TEXT NOT NULL UNIQUE,
  application TEXT NOT NULL,
  date TEXT NOT NULL,
  label TEXT NOT NULL,
  source TEXT NOT NULL,
  ompscale_version TEXT NOT NULL,
  thread_counts TEXT NOT NULL,
  reference_input TEXT NOT NULL,
  runs_analysed INTEGER NOT NULL,
  runs_failed INTEGER NOT NULL,
  pop TEXT NOT NULL,
  notes TEXT NOT NULL,
  ingested_at TEXT NOT NULL
);
CREATE TABLE app_regions (
  report INTEGER NOT NULL REFERENCES app_reports(id) ON DELETE CASCADE,
  rank INTEGER NOT NULL,
  key TEXT NOT NULL,
  label TEXT NOT NULL,
  kind TEXT NOT NULL,
  potential_gain_s REAL,
  model TEXT NOT NULL,
  growth TEXT NOT NULL,
  hints TEXT NOT NULL,
  PRIMARY KEY (report, key)
);
CREATE TABLE app_points (
  report INTEGER NOT NULL,
  region TEXT NOT NULL,
  input TEXT NOT NULL,
  threads INTEGER NOT NULL,
  repetitions INTEGER NOT NULL,
  time_s REAL,
  time_min_s REAL,
  time_max_s REAL,
  speedup REAL,
  efficiency REAL,
  lost_s REAL,
  imbalance_s REAL,
  walkthrough_s REAL,
  startup_s REAL,
  lock_contention_s REAL,
  lock_algorithm_s REAL,
  other_s REAL,
  PRIMARY KEY (report, region, input, threads),
  FOREIGN KEY (report, region) REFERENCES app_regions(report, key) ON DELETE CASCADE
);
)sql";

// Version 2: a run's identity in the history apart from the id its file gives it (runs started in
// the same second by an older ompbench share one), and the A/B comparisons of runtime builds.
constexpr std::string_view kVersion2 = R"sql(
ALTER TABLE runs ADD COLUMN file_run_id TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN source_path TEXT NOT NULL DEFAULT '';
UPDATE runs SET file_run_id = run_id, source_path = source;
CREATE INDEX runs_by_file_run_id ON runs(file_run_id, host);
CREATE TABLE ab_tests (
  id INTEGER PRIMARY KEY,
  date TEXT NOT NULL,
  label TEXT NOT NULL,
  host TEXT NOT NULL,
  old_build TEXT NOT NULL,
  new_build TEXT NOT NULL,
  rounds INTEGER NOT NULL,
  reps INTEGER NOT NULL,
  significance REAL NOT NULL,
  threshold REAL NOT NULL,
  command TEXT NOT NULL,
  ingested_at TEXT NOT NULL
);
CREATE TABLE ab_results (
  ab_test INTEGER NOT NULL REFERENCES ab_tests(id) ON DELETE CASCADE,
  series INTEGER NOT NULL REFERENCES series(id),
  threads INTEGER NOT NULL,
  checks_run INTEGER REFERENCES runs(id),
  pairs INTEGER NOT NULL,
  dropped INTEGER NOT NULL,
  old_median REAL,
  new_median REAL,
  change REAL,
  low REAL,
  high REAL,
  detectable REAL,
  verdict TEXT NOT NULL,
  rounds TEXT NOT NULL,
  PRIMARY KEY (ab_test, series, threads)
);
CREATE INDEX ab_results_by_run ON ab_results(checks_run, series, threads);
)sql";

// The stored analysis (version 3; the whole step is this one block and its entry in
// kMigrations, so that it can be given another number): the repetitions apart from the summaries (a
// scan of the summaries stays small, and old repetitions can be pruned while their summaries stay),
// the runs in the series index (a kernel's thread counts and runs are read from the index alone),
// and what the regression analysis derives from the history, stored by every ingest
// (dashboard/store/derived.h): the run-against-history tests with the noise each run was judged
// with, the steps and drifts, each kernel's noise floor, the model findings, and the model
// comparisons they were decided from.
constexpr std::string_view kStoredAnalysisStep = R"sql(
CREATE TABLE repetitions (
  run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  series INTEGER NOT NULL REFERENCES series(id),
  threads INTEGER NOT NULL,
  runtime_version TEXT NOT NULL,
  compiler TEXT NOT NULL,
  samples BLOB NOT NULL,
  PRIMARY KEY (run, series, threads, runtime_version, compiler)
);
INSERT INTO repetitions (run, series, threads, runtime_version, compiler, samples)
  SELECT run, series, threads, runtime_version, compiler, samples FROM summaries;
ALTER TABLE summaries DROP COLUMN samples;
DROP INDEX summaries_by_series;
CREATE INDEX summaries_by_series ON summaries(series, threads, run);
CREATE TABLE derivation (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  options TEXT NOT NULL,
  history TEXT NOT NULL,
  histories INTEGER NOT NULL,
  derived_at TEXT NOT NULL
);
CREATE TABLE judged_runs (
  series INTEGER NOT NULL REFERENCES series(id),
  threads INTEGER NOT NULL,
  run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  baseline_runs TEXT NOT NULL,
  baseline INTEGER NOT NULL,
  before REAL,
  after REAL,
  effect REAL,
  noise_variance REAL,
  noise_dof REAL,
  resolution REAL,
  p_value REAL,
  PRIMARY KEY (series, threads, run)
);
CREATE INDEX judged_runs_by_run ON judged_runs(run);
CREATE TABLE level_shifts (
  series INTEGER NOT NULL REFERENCES series(id),
  threads INTEGER NOT NULL,
  first_run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  last_run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  drift INTEGER NOT NULL,
  before REAL,
  after REAL,
  p_value REAL,
  PRIMARY KEY (series, threads, first_run)
);
CREATE TABLE kernel_noise (
  series INTEGER NOT NULL REFERENCES series(id),
  threads INTEGER NOT NULL,
  runs INTEGER NOT NULL,
  sigma REAL,
  floor REAL,
  PRIMARY KEY (series, threads)
);
CREATE TABLE model_findings (
  ordinal INTEGER PRIMARY KEY,
  model_set INTEGER NOT NULL REFERENCES model_sets(id) ON DELETE CASCADE,
  series INTEGER NOT NULL REFERENCES series(id),
  class TEXT NOT NULL,
  kind TEXT NOT NULL,
  worse INTEGER NOT NULL,
  severity REAL,
  threads INTEGER NOT NULL,
  before REAL,
  after REAL,
  change REAL,
  noise_floor REAL,
  threshold REAL,
  detail TEXT NOT NULL
);
CREATE INDEX model_findings_by_set ON model_findings(model_set);
CREATE TABLE growth_comparisons (
  model_set INTEGER NOT NULL REFERENCES model_sets(id) ON DELETE CASCADE,
  series INTEGER NOT NULL REFERENCES series(id),
  class TEXT NOT NULL,
  runtime_version TEXT NOT NULL,
  established INTEGER NOT NULL REFERENCES model_sets(id) ON DELETE CASCADE,
  established_runtime_version TEXT NOT NULL,
  refit_smape REAL,
  smape REAL,
  established_smape REAL,
  PRIMARY KEY (series, class, model_set, runtime_version, established,
               established_runtime_version)
);
CREATE TABLE interval_comparisons (
  model_set INTEGER NOT NULL REFERENCES model_sets(id) ON DELETE CASCADE,
  series INTEGER NOT NULL REFERENCES series(id),
  class TEXT NOT NULL,
  runtime_version TEXT NOT NULL,
  previous INTEGER NOT NULL REFERENCES model_sets(id) ON DELETE CASCADE,
  previous_runtime_version TEXT NOT NULL,
  level REAL NOT NULL,
  value REAL,
  predicted REAL,
  low REAL,
  high REAL,
  previous_value REAL,
  PRIMARY KEY (series, class, model_set, runtime_version, previous, previous_runtime_version,
               level)
);
)sql";

constexpr std::array<Migration, 3> kMigrations = {{
    {1, "ompbench runs and summaries, models, ompscan reports", kVersion1},
    {2, "runs apart from their file's run id; A/B comparisons of runtime builds", kVersion2},
    {3, "repetitions apart from the summaries; the derived analysis stored with the history",
     kStoredAnalysisStep},
}};

bool has_tables(Database& db) {
  Statement s = db.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table'");
  s.step();
  return s.integer(0) > 0;
}

}  // namespace

std::span<const Migration> history_migrations() {
  return kMigrations;
}

int schema_version(Database& db) {
  Statement s = db.prepare("PRAGMA user_version");
  s.step();
  return static_cast<int>(s.integer(0));
}

void migrate(Database& db, std::span<const Migration> migrations) {
  const int latest = migrations.empty() ? 0 : migrations.back().version;
  if (schema_version(db) == latest) return;  // the common case: no write lock needed
  Transaction transaction(db);
  // Checked again under the write lock: another process may have migrated meanwhile.
  const int version = schema_version(db);
  if (version > latest) {
    throw std::runtime_error(fmt::format(
        "{}: history schema version {} is newer than this ompdash knows ({}); use a newer "
        "ompdash",
        db.path(), version, latest));
  }
  if (version == 0 && has_tables(db)) {
    throw std::runtime_error(
        fmt::format("{}: not an ompdash history (it holds other tables)", db.path()));
  }
  for (const Migration& m : migrations) {
    if (m.version <= version) continue;
    db.exec(m.sql);
    db.exec(fmt::format("PRAGMA user_version = {}", m.version));
  }
  transaction.commit();
}

}  // namespace ompscale::dashboard

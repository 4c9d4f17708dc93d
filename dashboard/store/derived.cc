#include "dashboard/store/derived.h"

#include <fmt/format.h>

#include <algorithm>

namespace ompscale::dashboard {

namespace {

using JudgedKey = std::tuple<std::int64_t, int, std::int64_t>;  // series, threads, run

constexpr std::string_view kJudgedColumns =
    "j.series, j.threads, j.run, j.baseline_runs, j.baseline, j.before, j.after, j.effect, "
    "j.noise_variance, j.noise_dof, j.resolution, j.p_value";

JudgedRun read_judged(const Statement& s) {
  JudgedRun j;
  using J = JudgedRun;
  read_columns(s, 0, j, &J::series, &J::threads, &J::run, &J::baseline_runs, &J::baseline,
               &J::before, &J::after, &J::effect, &J::noise_variance, &J::noise_dof, &J::resolution,
               &J::p_value);
  return j;
}

// Deletes the stored judged runs that `derived` no longer has.
void delete_vanished(Database& db, const std::vector<JudgedRun>& judged) {
  std::vector<JudgedKey> keep;
  keep.reserve(judged.size());
  for (const JudgedRun& j : judged) keep.emplace_back(j.series, j.threads, j.run);
  std::sort(keep.begin(), keep.end());
  Statement stored = db.prepare("SELECT series, threads, run FROM judged_runs");
  std::vector<JudgedKey> gone;
  while (stored.step()) {
    const JudgedKey key{stored.integer(0), static_cast<int>(stored.integer(1)), stored.integer(2)};
    if (!std::binary_search(keep.begin(), keep.end(), key)) gone.push_back(key);
  }
  Statement erase =
      db.prepare("DELETE FROM judged_runs WHERE series = ? AND threads = ? AND run = ?");
  for (const auto& [series, threads, run] : gone) {
    erase.reset();
    erase.bind_all(series, threads, run).run();
  }
}

void write_judged(Database& db, const std::vector<JudgedRun>& judged) {
  delete_vanished(db, judged);
  Statement insert = db.prepare(
      "INSERT OR REPLACE INTO judged_runs (series, threads, run, baseline_runs, baseline, before, "
      "after, effect, noise_variance, noise_dof, resolution, p_value) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (const JudgedRun& j : judged) {
    if (j.stored) continue;
    insert.reset();
    insert
        .bind_all(j.series, j.threads, j.run, j.baseline_runs, j.baseline, j.before, j.after,
                  j.effect, j.noise_variance, j.noise_dof, j.resolution, j.p_value)
        .run();
  }
}

void write_rest(Database& db, const Derived& d) {
  db.exec("DELETE FROM level_shifts; DELETE FROM kernel_noise; DELETE FROM model_findings;");
  Statement shift = db.prepare(
      "INSERT INTO level_shifts (series, threads, first_run, last_run, drift, before, after, "
      "p_value) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  for (const ShiftRecord& s : d.shifts) {
    shift.reset();
    shift
        .bind_all(s.series, s.threads, s.first_run, s.last_run, s.drift, s.before, s.after,
                  s.p_value)
        .run();
  }
  Statement noise = db.prepare(
      "INSERT INTO kernel_noise (series, threads, runs, sigma, floor) VALUES (?, ?, ?, ?, ?)");
  for (const NoiseRecord& n : d.noise) {
    noise.reset();
    noise.bind_all(n.series, n.threads, n.runs, n.sigma, n.floor).run();
  }
  Statement model = db.prepare(
      "INSERT INTO model_findings (model_set, series, class, kind, worse, severity, threads, "
      "before, after, change, noise_floor, threshold, detail) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (const ModelFindingRecord& m : d.model_findings) {
    model.reset();
    model
        .bind_all(m.model_set, m.series, m.thread_class, m.kind, m.worse, m.severity, m.threads,
                  m.before, m.after, m.change, m.noise_floor, m.threshold, m.detail)
        .run();
  }
}

std::vector<JudgedRun> read_judged_since(Database& db, const std::string& since) {
  Statement s = db.prepare(
      fmt::format("SELECT {} FROM judged_runs j JOIN runs r ON r.id = j.run WHERE r.date >= ? "
                  "ORDER BY j.series, j.threads, r.date, r.run_id, r.host",
                  kJudgedColumns));
  s.bind_all(since);
  std::vector<JudgedRun> out;
  while (s.step()) out.push_back(read_judged(s));
  return out;
}

std::vector<ShiftRecord> read_shifts_since(Database& db, const std::string& since) {
  Statement s = db.prepare(
      "SELECT l.series, l.threads, l.first_run, l.last_run, l.drift, l.before, l.after, "
      "l.p_value FROM level_shifts l JOIN runs r ON r.id = l.first_run WHERE r.date >= ? "
      "ORDER BY l.series, l.threads, r.date, r.run_id, r.host");
  s.bind_all(since);
  using S = ShiftRecord;
  return read_rows(s, &S::series, &S::threads, &S::first_run, &S::last_run, &S::drift, &S::before,
                   &S::after, &S::p_value);
}

std::vector<ModelFindingRecord> read_model_findings_since(Database& db, const std::string& since) {
  Statement s = db.prepare(
      "SELECT f.model_set, f.series, f.class, f.kind, f.worse, f.severity, f.threads, f.before, "
      "f.after, f.change, f.noise_floor, f.threshold, f.detail, ms.date, ms.label, "
      "(SELECT r.run_id FROM model_set_runs l JOIN runs r ON r.id = l.run WHERE l.model_set = "
      "f.model_set ORDER BY r.date DESC LIMIT 1) "
      "FROM model_findings f JOIN model_sets ms ON ms.id = f.model_set WHERE ms.date >= ? "
      "ORDER BY f.ordinal");
  s.bind_all(since);
  using M = ModelFindingRecord;
  return read_rows(s, &M::model_set, &M::series, &M::thread_class, &M::kind, &M::worse,
                   &M::severity, &M::threads, &M::before, &M::after, &M::change, &M::noise_floor,
                   &M::threshold, &M::detail, &M::date, &M::label, &M::run_id);
}

}  // namespace

std::optional<DerivedStamp> read_derived_stamp(Database& db) {
  Statement s =
      db.prepare("SELECT options, history, histories, derived_at FROM derivation WHERE id = 1");
  if (!s.step()) return std::nullopt;
  DerivedStamp stamp;
  read_columns(s, 0, stamp, &DerivedStamp::options, &DerivedStamp::history,
               &DerivedStamp::histories, &DerivedStamp::derived_at);
  return stamp;
}

std::string history_fingerprint(Database& db) {
  Statement s = db.prepare(
      "SELECT (SELECT count(*) FROM runs), (SELECT coalesce(max(id), 0) FROM runs), "
      "(SELECT count(*) FROM model_sets), (SELECT coalesce(max(id), 0) FROM model_sets)");
  s.step();
  return fmt::format("runs {} (last {}), model sets {} (last {})", s.integer(0), s.integer(1),
                     s.integer(2), s.integer(3));
}

void write_derived(Database& db, const Derived& derived, const std::string& now) {
  db.prepare(
        "INSERT OR REPLACE INTO derivation (id, options, history, histories, derived_at) "
        "VALUES (1, ?, ?, ?, ?)")
      .bind_all(derived.options, derived.history, derived.histories, now)
      .run();
  write_judged(db, derived.judged);
  write_rest(db, derived);
}

Derived read_derived(Database& db, const std::string& since) {
  Derived d;
  if (const auto stamp = read_derived_stamp(db)) {
    d.options = stamp->options;
    d.history = stamp->history;
    d.histories = stamp->histories;
  }
  d.judged = read_judged_since(db, since);
  d.shifts = read_shifts_since(db, since);
  Statement noise = db.prepare(
      "SELECT series, threads, runs, sigma, floor FROM kernel_noise ORDER BY series, "
      "threads");
  using N = NoiseRecord;
  d.noise = read_rows(noise, &N::series, &N::threads, &N::runs, &N::sigma, &N::floor);
  d.model_findings = read_model_findings_since(db, since);
  return d;
}

std::map<std::int64_t, JudgedRun> read_judged_history(Database& db, std::int64_t series,
                                                      int threads) {
  Statement s = db.prepare(fmt::format(
      "SELECT {} FROM judged_runs j WHERE j.series = ? AND j.threads = ?", kJudgedColumns));
  s.bind_all(series, threads);
  std::map<std::int64_t, JudgedRun> out;
  while (s.step()) {
    JudgedRun j = read_judged(s);
    const std::int64_t run = j.run;
    out.emplace(run, std::move(j));
  }
  return out;
}

ModelComparisons read_model_comparisons(Database& db, std::int64_t series,
                                        const std::string& thread_class) {
  ModelComparisons out;
  Statement growth = db.prepare(
      "SELECT model_set, runtime_version, established, established_runtime_version, "
      "refit_smape, smape, established_smape FROM growth_comparisons WHERE series = ? AND "
      "class = ?");
  growth.bind_all(series, thread_class);
  while (growth.step()) {
    const ModelRef model{growth.integer(0), growth.text(1)};
    const ModelRef against{growth.integer(2), growth.text(3)};
    out.growth[{model, against}] = {growth.real(4), growth.real(5), growth.real(6)};
  }
  Statement interval = db.prepare(
      "SELECT model_set, runtime_version, previous, previous_runtime_version, level, value, "
      "predicted, low, high, previous_value FROM interval_comparisons WHERE series = ? AND "
      "class = ?");
  interval.bind_all(series, thread_class);
  while (interval.step()) {
    const ModelRef model{interval.integer(0), interval.text(1)};
    const ModelRef against{interval.integer(2), interval.text(3)};
    out.interval[{model, against, interval.real(4)}] = {
        interval.real(5), interval.real(6), interval.real(7), interval.real(8), interval.real(9)};
  }
  return out;
}

void write_model_comparisons(Database& db, std::int64_t series, const std::string& thread_class,
                             const ModelComparisons& added) {
  Statement growth = db.prepare(
      "INSERT OR REPLACE INTO growth_comparisons (series, class, model_set, runtime_version, "
      "established, established_runtime_version, refit_smape, smape, established_smape) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (const auto& [key, g] : added.growth) {
    growth.reset();
    growth
        .bind_all(series, thread_class, key.first.model_set, key.first.runtime_version,
                  key.second.model_set, key.second.runtime_version, g.refit_smape, g.smape,
                  g.established_smape)
        .run();
  }
  Statement interval = db.prepare(
      "INSERT OR REPLACE INTO interval_comparisons (series, class, model_set, runtime_version, "
      "previous, previous_runtime_version, level, value, predicted, low, high, previous_value) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (const auto& [key, c] : added.interval) {
    const auto& [model, against, level] = key;
    interval.reset();
    interval
        .bind_all(series, thread_class, model.model_set, model.runtime_version, against.model_set,
                  against.runtime_version, level, c.value, c.predicted, c.low, c.high,
                  c.previous_value)
        .run();
  }
}

}  // namespace ompscale::dashboard

#include "dashboard/store/write.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "common/error.h"
#include "common/statistics.h"

namespace ompscale::dashboard {

namespace {

std::string key_json(const SeriesKey& key) {
  nlohmann::ordered_json object = nlohmann::ordered_json::object();
  for (const auto& [name, value] : key.columns) object[name] = value;
  return object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::int64_t series_id(Database& db, const SeriesKey& key) {
  const std::string canonical = key.canonical();
  Statement find = db.prepare("SELECT id FROM series WHERE key = ?");
  if (find.bind_all(canonical).step()) return find.integer(0);
  db.prepare(
        "INSERT INTO series (key, key_json, construct, method, metric, bind, places, runtime, "
        "platform, param, param_value, unit) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
      .bind_all(canonical, key_json(key), key.value("construct"), key.value("method"),
                key.value("metric"), key.value("bind"), key.value("places"), key.value("runtime"),
                key.value("platform"), key.value("param"), key.value("param_value"),
                key.value("unit"))
      .run();
  return db.last_insert_rowid();
}

// The runs of the history that came with file run id `run_id` from `host`: several when runs of an
// older ompbench started in the same second.
struct StoredRun {
  std::int64_t id = 0;
  std::string run_id, fingerprint, source_path;
};

std::vector<StoredRun> runs_with_file_id(Database& db, const std::string& run_id,
                                         const std::string& host) {
  Statement s = db.prepare(
      "SELECT id, run_id, fingerprint, source_path FROM runs WHERE file_run_id = ? AND host = ? "
      "ORDER BY id");
  s.bind_all(run_id, host);
  return read_rows(s, &StoredRun::id, &StoredRun::run_id, &StoredRun::fingerprint,
                   &StoredRun::source_path);
}

// The run's row id, when the history has it: the one run with its file id and host, or the one of
// several whose content matches.
std::optional<std::int64_t> find_run(Database& db, const RunRef& ref) {
  const std::vector<StoredRun> runs = runs_with_file_id(db, ref.run_id, ref.host);
  for (const StoredRun& r : runs) {
    if (!ref.fingerprint.empty() && r.fingerprint == ref.fingerprint) return r.id;
  }
  if (runs.size() == 1 && ref.fingerprint.empty()) return runs.front().id;
  return std::nullopt;
}

// Where a results file is, independent of the directory it was named from.
std::string absolute_path(const std::string& file) {
  std::error_code error;
  const std::filesystem::path path = std::filesystem::absolute(file, error);
  return error ? file : path.lexically_normal().string();
}

std::string joined(const std::vector<std::string>& items) {
  return fmt::format("{}", fmt::join(items, ", "));
}

void insert_summary(Statement& insert, Statement& repetitions, std::int64_t run,
                    std::int64_t series, const ConfigSummary& c) {
  const std::vector<double> sorted = stats::sorted(c.values);
  const bool any = !sorted.empty();
  const auto at = [&](double q) { return any ? stats::quantile(sorted, q) : std::nan(""); };
  insert.reset();
  insert
      .bind_all(run, series, c.threads, c.thread_class, c.runtime_version, c.compiler,
                static_cast<std::int64_t>(sorted.size()), static_cast<std::int64_t>(c.total),
                at(0.5), at(0.25), at(0.75), any ? sorted.front() : std::nan(""),
                any ? sorted.back() : std::nan(""), any ? stats::mean(sorted) : std::nan(""),
                c.total == 0 ? 0.0 : static_cast<double>(sorted.size()) / c.total,
                c.canary_ns > 0 ? c.canary_ns : std::nan(""), c.canary_state, c.oversubscribed)
      .run();
  repetitions.reset();
  repetitions.bind_all(run, series, c.threads, c.runtime_version, c.compiler)
      .bind_blob(6, to_blob(c.values))
      .run();
}

// The run's id in the history: its file's run id, or, when runs of another file already came with
// that id from the same host (an older ompbench named runs by their start second only), the id
// with "~N" added, N counting those runs. Empty when the history has this run already (same
// content); InputError when the same file's run changed since it was ingested.
std::string history_run_id(Database& db, const BenchRun& run, const std::string& source_path) {
  const std::vector<StoredRun> same_id = runs_with_file_id(db, run.run_id, run.host);
  for (const StoredRun& r : same_id) {
    if (r.fingerprint == run.fingerprint) return {};
  }
  for (const StoredRun& r : same_id) {
    if (r.source_path != source_path) continue;
    throw InputError(run.source, 0,
                     fmt::format("run '{}' of host '{}' is in the history already from this "
                                 "file ({}), with other content: was the file changed or resumed "
                                 "since it was ingested?",
                                 run.run_id, run.host, r.run_id));
  }
  if (same_id.empty()) return run.run_id;
  return fmt::format("{}~{}", run.run_id, same_id.size() + 1);
}

// Returns the run's id in the history, or "" when the history has it already.
std::string insert_run(Database& db, const BenchRun& run, const std::string& label,
                       const std::string& now) {
  const std::string source_path = absolute_path(run.source);
  const std::string run_id = history_run_id(db, run, source_path);
  if (run_id.empty()) return {};
  const auto known = [](double v) { return v > 0 ? v : std::nan(""); };
  db.prepare(
        "INSERT INTO runs (run_id, host, fingerprint, date, label, platform, runtimes, "
        "compilers, ompscale_version, status, source, command, workers, environment, "
        "canary_reference_ns, canary_typical_ns, canary_median_ns, compute_reference_ns, "
        "unusual_phase, phase_note, ingested_at, file_run_id, source_path) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
      .bind_all(run_id, run.host, run.fingerprint, run.date, label, run.platform,
                joined(run.runtimes), joined(run.compilers), run.ompscale_version, run.status,
                run.source, run.command_json, run.workers_json, run.environment_json,
                known(run.canary_reference_ns), known(run.canary_typical_ns),
                known(run.canary_median_ns), known(run.compute_reference_ns), run.unusual_phase,
                run.phase_note, now, run.run_id, source_path)
      .run();
  const std::int64_t id = db.last_insert_rowid();
  Statement insert = db.prepare(
      "INSERT INTO summaries (run, series, threads, thread_class, runtime_version, compiler, n, "
      "n_total, median, q1, q3, min, max, mean, valid_share, canary_ns, canary_state, "
      "oversubscribed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  Statement repetitions = db.prepare(
      "INSERT INTO repetitions (run, series, threads, runtime_version, compiler, samples) "
      "VALUES (?, ?, ?, ?, ?, ?)");
  for (const ConfigSummary& c : run.configs)
    insert_summary(insert, repetitions, id, series_id(db, c.key), c);
  return run_id;
}

bool has_fingerprint(Database& db, std::string_view table, const std::string& fingerprint) {
  Statement s = db.prepare(fmt::format("SELECT 1 FROM {} WHERE fingerprint = ?", table));
  return s.bind_all(fingerprint).step();
}

void insert_model(Statement& insert, std::int64_t set, std::int64_t series, const ModelRecord& m) {
  const auto crossing = [&](double v) { return m.budget > 0 && v > 0 ? v : std::nan(""); };
  insert.reset();
  insert
      .bind_all(set, series, m.runtime_version, m.compiler, m.thread_class, m.model, m.growth,
                m.valid, m.worse_than_log, m.noise_dominates, m.adjusted_r2, m.smape, m.cv_error,
                static_cast<std::int64_t>(m.points),
                m.largest_threads > 0 ? m.largest_threads : std::nan(""),
                m.budget > 0 ? m.budget : std::nan(""), crossing(m.budget_threads),
                crossing(m.budget_threads_early), crossing(m.budget_threads_late), m.document)
      .run();
}

bool insert_model_set(Database& db, const ModelSet& set, const std::string& label,
                      const std::string& now) {
  if (has_fingerprint(db, "model_sets", set.fingerprint)) return false;
  std::vector<std::int64_t> runs;
  std::string date;
  for (const RunRef& ref : set.runs) {
    const auto run = find_run(db, ref);
    if (!run) {
      throw InputError(set.source, 0,
                       fmt::format("its run '{}' (host '{}') is not in the history: ingest the "
                                   "results file first, or in the same command",
                                   ref.run_id, ref.host));
    }
    runs.push_back(*run);
    Statement d = db.prepare("SELECT date FROM runs WHERE id = ?");
    d.bind_all(*run).step();
    date = std::max(date, d.text(0));
  }
  db.prepare(
        "INSERT INTO model_sets (fingerprint, date, label, source, ompscale_version, parameter, "
        "options, ingested_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
      .bind_all(set.fingerprint, date, label, set.source, set.ompscale_version, set.parameter,
                set.options_json, now)
      .run();
  const std::int64_t id = db.last_insert_rowid();
  for (const std::int64_t run : runs) {
    db.prepare("INSERT OR IGNORE INTO model_set_runs (model_set, run) VALUES (?, ?)")
        .bind_all(id, run)
        .run();
  }
  Statement insert = db.prepare(
      "INSERT OR REPLACE INTO models (model_set, series, runtime_version, compiler, class, model, "
      "growth, valid, worse_than_log, noise_dominates, adjusted_r2, smape, cv_error, points, "
      "largest_threads, budget, budget_threads, budget_threads_early, budget_threads_late, "
      "document) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (const ModelRecord& m : set.models) insert_model(insert, id, series_id(db, m.key), m);
  return true;
}

void insert_region(Database& db, std::int64_t report, const AppRegion& r) {
  db.prepare(
        "INSERT OR REPLACE INTO app_regions (report, rank, key, label, kind, potential_gain_s, "
        "model, growth, hints) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
      .bind_all(report, r.rank, r.key, r.label, r.kind, r.potential_gain_s, r.model, r.growth,
                r.hints_json)
      .run();
  Statement insert = db.prepare(
      "INSERT OR REPLACE INTO app_points (report, region, input, threads, repetitions, time_s, "
      "time_min_s, time_max_s, speedup, efficiency, lost_s, imbalance_s, walkthrough_s, "
      "startup_s, lock_contention_s, lock_algorithm_s, other_s) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (const AppPoint& p : r.points) {
    insert.reset();
    insert
        .bind_all(report, r.key, p.input, p.threads, p.repetitions, p.time_s, p.time_min_s,
                  p.time_max_s, p.speedup, p.efficiency, p.lost_s, p.imbalance_s, p.walkthrough_s,
                  p.startup_s, p.lock_contention_s, p.lock_algorithm_s, p.other_s)
        .run();
  }
}

bool insert_report(Database& db, const AppReport& r, const std::string& label,
                   const std::string& now) {
  if (has_fingerprint(db, "app_reports", r.fingerprint)) return false;
  db.prepare(
        "INSERT INTO app_reports (fingerprint, application, date, label, source, "
        "ompscale_version, thread_counts, reference_input, runs_analysed, runs_failed, pop, "
        "notes, ingested_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
      .bind_all(r.fingerprint, r.application, r.date, label, r.source, r.ompscale_version,
                r.thread_counts_json, r.reference_input, r.runs_analysed, r.runs_failed, r.pop_json,
                r.notes_json, now)
      .run();
  const std::int64_t id = db.last_insert_rowid();
  for (const AppRegion& region : r.regions) insert_region(db, id, region);
  return true;
}

}  // namespace

std::vector<IngestedItem> write_batch(
    Database& db, const IngestBatch& batch, const std::string& label, const std::string& now,
    const std::function<void(Database&, const std::vector<IngestedItem>&)>& before_commit) {
  std::vector<IngestedItem> items;
  Transaction transaction(db);
  for (const BenchRun& run : batch.runs) {
    const std::string id = insert_run(db, run, label, now);
    items.push_back({"run", run.source, id.empty() ? run.run_id : id, !id.empty(), run.note});
  }
  for (const ModelSet& set : batch.model_sets) {
    items.push_back({"models", set.source, fmt::format("{} models", set.models.size()),
                     insert_model_set(db, set, label, now), ""});
  }
  for (const AppReport& report : batch.reports) {
    items.push_back(
        {"report", report.source, report.application, insert_report(db, report, label, now), ""});
  }
  if (before_commit) before_commit(db, items);
  transaction.commit();
  return items;
}

}  // namespace ompscale::dashboard

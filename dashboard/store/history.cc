#include "dashboard/store/history.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <climits>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/text.h"
#include "dashboard/store/records.h"
#include "dashboard/store/schema.h"

namespace ompscale::dashboard {

namespace {

// The key columns from the stored key_json, in the file's column order.
std::vector<std::pair<std::string, std::string>> key_columns(const std::string& key_json) {
  std::vector<std::pair<std::string, std::string>> out;
  const nlohmann::ordered_json object = nlohmann::ordered_json::parse(key_json);
  for (const auto& [column, value] : object.items()) {
    out.emplace_back(column, value.get<std::string>());
  }
  return out;
}

// The integers of a group_concat cell ("1,2,4"); anything else is a damaged database, named with
// the row it was found in.
std::vector<long long> integer_list(const Database& db, const std::string& cell,
                                    std::string_view what, long long max) {
  std::vector<long long> out;
  for (const std::string& item : split(cell, ',')) {
    if (item.empty()) continue;
    const std::optional<long long> value = parse_integer(item, 1, max);
    if (!value)
      throw InputError(db.path(), 0,
                       fmt::format("{}: '{}' is not a list of whole numbers", what, cell));
    out.push_back(*value);
  }
  return out;
}

// The schema version of a database opened for reading; a file that is no SQLite database, or one
// without the history's schema, is named as not a history.
int read_schema_version(Database& db, const std::string& path) {
  try {
    const int version = schema_version(db);
    if (version == 0) {
      throw std::runtime_error(
          fmt::format("{}: not an ompdash history (no history schema in it; ompdash ingest --db "
                      "creates one)",
                      path));
    }
    return version;
  } catch (const SqliteError& e) {
    if ((e.code() & 0xff) != SQLITE_NOTADB) throw;
    throw std::runtime_error(
        fmt::format("{}: not an ompdash history (not an SQLite database)", path));
  }
}

}  // namespace

Database open_history(const std::string& path, bool read_only) {
  if (read_only && !std::filesystem::exists(path)) {
    throw std::runtime_error(fmt::format("{}: no such history (ompdash ingest creates it)", path));
  }
  Database db = Database::open(path, {.read_only = read_only});
  const auto migrations = history_migrations();
  if (!read_only) {
    migrate(db, migrations);
    return db;
  }
  const int version = read_schema_version(db, path);
  const int latest = migrations.back().version;
  if (version > latest) {
    throw std::runtime_error(fmt::format(
        "{}: history schema version {} is newer than this ompdash knows ({}); use a newer ompdash",
        path, version, latest));
  }
  if (version < latest) {
    throw std::runtime_error(
        fmt::format("{}: history schema version {}, this ompdash reads {}: the next ompdash "
                    "ingest (or nightly) into it brings it up to date",
                    path, version, latest));
  }
  return db;
}

std::vector<RunInfo> list_runs(Database& db) {
  Statement s = db.prepare(
      "SELECT r.id, run_id, host, date, label, platform, runtimes, compilers, status, source, "
      "unusual_phase, phase_note, canary_median_ns, "
      "(SELECT count(*) FROM summaries WHERE run = r.id) "
      "FROM runs r ORDER BY date, run_id, host");
  using R = RunInfo;
  return read_rows(s, &R::id, &R::run_id, &R::host, &R::date, &R::label, &R::platform, &R::runtimes,
                   &R::compilers, &R::status, &R::source, &R::unusual_phase, &R::phase_note,
                   &R::canary_median_ns, &R::configurations);
}

std::vector<SeriesInfo> list_series(Database& db) {
  Statement s = db.prepare(
      "SELECT id, key, key_json, construct, method, metric, bind, places, runtime, platform, "
      "param, param_value, unit, "
      "(SELECT group_concat(DISTINCT threads) FROM summaries WHERE series = series.id), "
      "(SELECT count(DISTINCT run) FROM summaries WHERE series = series.id) "
      "FROM series ORDER BY construct, runtime, platform, key");
  std::vector<SeriesInfo> out;
  while (s.step()) {
    SeriesInfo i;
    read_columns(s, 0, i, &SeriesInfo::id, &SeriesInfo::key);
    i.columns = key_columns(s.text(2));
    i.description = SeriesKey{i.columns}.describe();
    read_columns(s, 3, i, &SeriesInfo::construct, &SeriesInfo::method, &SeriesInfo::metric,
                 &SeriesInfo::bind, &SeriesInfo::places, &SeriesInfo::runtime,
                 &SeriesInfo::platform, &SeriesInfo::param, &SeriesInfo::param_value,
                 &SeriesInfo::unit);
    for (const long long t :
         integer_list(db, s.text(13), fmt::format("thread counts of series '{}'", i.key), INT_MAX))
      i.threads.push_back(static_cast<int>(t));
    std::sort(i.threads.begin(), i.threads.end());
    i.runs = s.integer(14);
    out.push_back(std::move(i));
  }
  return out;
}

std::vector<SeriesHistory> load_histories(Database& db) {
  // Several runtime builds of one run (rare) count as one point each; the median of the first.
  Statement s = db.prepare(
      "SELECT m.series, m.threads, r.id, r.run_id, r.date, r.label, m.runtime_version, "
      "m.canary_state, r.unusual_phase, m.n, m.n_total, m.median, m.q1, m.q3, m.min, m.max, "
      "m.mean, m.valid_share FROM summaries m JOIN runs r ON r.id = m.run "
      "ORDER BY m.series, m.threads, r.date, r.run_id, r.host");
  std::vector<SeriesHistory> out;
  while (s.step()) {
    const std::int64_t series = s.integer(0);
    const int threads = static_cast<int>(s.integer(1));
    if (out.empty() || out.back().series != series || out.back().threads != threads) {
      out.push_back({series, threads, {}});
    }
    HistoryPoint p;
    p.run = s.integer(2);
    if (!out.back().points.empty() && out.back().points.back().run == p.run) continue;
    using P = HistoryPoint;
    read_columns(s, 3, p, &P::run_id, &P::date, &P::label, &P::runtime_version, &P::canary_state,
                 &P::unusual_phase, &P::n, &P::total, &P::median, &P::q1, &P::q3, &P::min, &P::max,
                 &P::mean, &P::valid_share);
    out.back().points.push_back(std::move(p));
  }
  return out;
}

std::vector<double> load_samples(Database& db, std::int64_t run, std::int64_t series, int threads) {
  Statement s =
      db.prepare("SELECT samples FROM summaries WHERE run = ? AND series = ? AND threads = ?");
  s.bind_all(run, series, threads);
  std::vector<double> out;
  while (s.step()) {
    const std::vector<double> part = from_blob(s.blob(0));
    out.insert(out.end(), part.begin(), part.end());
  }
  return out;
}

std::vector<ModelHistory> load_model_histories(Database& db) {
  Statement s = db.prepare(
      "SELECT m.series, m.class, m.model_set, ms.date, ms.label, m.runtime_version, m.model, "
      "m.growth, m.document, m.valid, m.adjusted_r2, m.largest_threads, m.budget, "
      "m.budget_threads, (SELECT group_concat(run) FROM model_set_runs WHERE model_set = "
      "m.model_set), m.noise_dominates, m.budget_threads_early, m.budget_threads_late, "
      "(SELECT r.run_id FROM model_set_runs l JOIN runs r ON r.id = l.run WHERE l.model_set = "
      "m.model_set ORDER BY r.date DESC LIMIT 1), m.points FROM models m JOIN model_sets ms ON "
      "ms.id = "
      "m.model_set "
      "ORDER BY m.series, m.class, ms.date, ms.id");
  std::vector<ModelHistory> out;
  while (s.step()) {
    const std::int64_t series = s.integer(0);
    const std::string thread_class = s.text(1);
    if (out.empty() || out.back().series != series || out.back().thread_class != thread_class) {
      out.push_back({series, thread_class, {}});
    }
    ModelPoint p;
    p.thread_class = thread_class;
    using P = ModelPoint;
    read_columns(s, 2, p, &P::model_set, &P::date, &P::label, &P::runtime_version, &P::model,
                 &P::growth, &P::document, &P::valid, &P::adjusted_r2, &P::largest_threads,
                 &P::budget, &P::budget_threads);
    read_columns(s, 15, p, &P::noise_dominates, &P::budget_threads_early, &P::budget_threads_late,
                 &P::run_id, &P::points);
    for (const long long run :
         integer_list(db, s.text(14), fmt::format("runs of model set {}", p.model_set), LLONG_MAX))
      p.runs.push_back(run);
    out.back().models.push_back(std::move(p));
  }
  return out;
}

std::vector<ModelSetInfo> list_model_sets(Database& db) {
  Statement s = db.prepare(
      "SELECT id, date, label, source, parameter, (SELECT count(*) FROM models WHERE model_set = "
      "model_sets.id) FROM model_sets ORDER BY date, id");
  using M = ModelSetInfo;
  return read_rows(s, &M::id, &M::date, &M::label, &M::source, &M::parameter, &M::models);
}

std::vector<AppReportInfo> list_app_reports(Database& db) {
  Statement s = db.prepare(
      "SELECT id, application, date, label, source, thread_counts, reference_input, "
      "(SELECT count(*) FROM app_regions WHERE report = app_reports.id AND rank > 0), "
      "runs_analysed, runs_failed FROM app_reports ORDER BY application, date, id");
  using A = AppReportInfo;
  return read_rows(s, &A::id, &A::application, &A::date, &A::label, &A::source, &A::thread_counts,
                   &A::reference_input, &A::regions, &A::runs_analysed, &A::runs_failed);
}

std::vector<AppRegionInfo> load_app_regions(Database& db, std::int64_t report) {
  Statement s = db.prepare(
      "SELECT report, rank, key, label, kind, model, growth, hints, potential_gain_s FROM "
      "app_regions WHERE report = ? ORDER BY rank, key");
  s.bind_all(report);
  using A = AppRegionInfo;
  return read_rows(s, &A::report, &A::rank, &A::key, &A::label, &A::kind, &A::model, &A::growth,
                   &A::hints_json, &A::potential_gain_s);
}

std::vector<AppPointInfo> load_app_points(Database& db, const std::string& application) {
  Statement s = db.prepare(
      "SELECT p.report, p.region, p.input, p.threads, p.time_s, p.time_min_s, p.time_max_s, "
      "p.speedup, p.efficiency, p.lost_s, p.imbalance_s, p.walkthrough_s, p.startup_s, "
      "p.lock_contention_s, p.lock_algorithm_s, p.other_s FROM app_points p JOIN app_reports r "
      "ON r.id = p.report WHERE r.application = ? ORDER BY r.date, r.id, p.region, p.input, "
      "p.threads");
  s.bind_all(application);
  using P = AppPointInfo;
  return read_rows(s, &P::report, &P::region, &P::input, &P::threads, &P::time_s, &P::time_min_s,
                   &P::time_max_s, &P::speedup, &P::efficiency, &P::lost_s, &P::imbalance_s,
                   &P::walkthrough_s, &P::startup_s, &P::lock_contention_s, &P::lock_algorithm_s,
                   &P::other_s);
}

}  // namespace ompscale::dashboard

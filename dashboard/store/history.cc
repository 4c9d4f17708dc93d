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

// "WHERE s.metric ..." keeping the series of `metrics` (and those without a metric); "" for all.
std::string metric_filter(const std::vector<std::string>& metrics) {
  if (metrics.empty()) return "";
  std::string filter = "WHERE (s.metric = ''";
  for (std::size_t i = 0; i < metrics.size(); ++i) filter += " OR s.metric = ?";
  return filter + ")";
}

void bind_metrics(Statement& s, const std::vector<std::string>& metrics) {
  for (std::size_t i = 0; i < metrics.size(); ++i) s.bind(static_cast<int>(i) + 1, metrics[i]);
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

std::vector<SeriesHistory> load_histories(Database& db, const std::vector<std::string>& metrics) {
  // Several runtime builds of one run (rare) count as one point each; the median of the first.
  Statement s = db.prepare(fmt::format(
      "SELECT m.series, m.threads, r.id, r.run_id, r.date, r.label, m.runtime_version, "
      "m.canary_state, r.unusual_phase, m.n, m.n_total, m.median, m.q1, m.q3, m.min, m.max, "
      "m.mean, m.valid_share FROM summaries m JOIN runs r ON r.id = m.run JOIN series s ON "
      "s.id = m.series {} ORDER BY m.series, m.threads, r.date, r.run_id, r.host",
      metric_filter(metrics)));
  bind_metrics(s, metrics);
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

RepetitionReader::RepetitionReader(Database& db)
    : statement_(db.prepare(
          "SELECT samples FROM repetitions WHERE run = ? AND series = ? AND threads = ?")) {}

std::vector<double> RepetitionReader::read(std::int64_t run, std::int64_t series, int threads) {
  statement_.reset();
  statement_.bind_all(run, series, threads);
  std::vector<double> out;
  while (statement_.step()) {
    const std::vector<double> part = from_blob(statement_.blob(0));
    out.insert(out.end(), part.begin(), part.end());
  }
  return out;
}

std::vector<double> load_samples(Database& db, std::int64_t run, std::int64_t series, int threads) {
  return RepetitionReader(db).read(run, series, threads);
}

std::vector<LevelHistory> load_levels(Database& db, const std::vector<std::string>& metrics) {
  Statement s = db.prepare(fmt::format(
      "SELECT m.series, m.threads, m.run, m.median, m.n, m.canary_state = 'unusual' "
      "FROM summaries m JOIN runs r ON r.id = m.run JOIN series s ON s.id = m.series {} "
      "ORDER BY m.series, m.threads, r.date, r.run_id, r.host",
      metric_filter(metrics)));
  bind_metrics(s, metrics);
  std::vector<LevelHistory> out;
  while (s.step()) {
    const std::int64_t series = s.integer(0);
    const int threads = static_cast<int>(s.integer(1));
    if (out.empty() || out.back().series != series || out.back().threads != threads) {
      out.push_back({series, threads, {}});
    }
    LevelPoint p;
    read_columns(s, 2, p, &LevelPoint::run, &LevelPoint::median, &LevelPoint::n,
                 &LevelPoint::unusual_canary);
    // Several runtime builds in one run (rare): the first one's median, as load_histories().
    if (!out.back().points.empty() && out.back().points.back().run == p.run) continue;
    out.back().points.push_back(p);
  }
  return out;
}

namespace {

// Per model set: the runs it was fitted on and the run id of the latest of them.
struct SetRuns {
  std::vector<std::int64_t> runs;
  std::string latest_run_id;
};

std::map<std::int64_t, SetRuns> model_set_runs(Database& db) {
  Statement s = db.prepare(
      "SELECT l.model_set, l.run, r.run_id FROM model_set_runs l JOIN runs r ON r.id = l.run "
      "ORDER BY l.model_set, r.date, l.run");
  std::map<std::int64_t, SetRuns> out;
  while (s.step()) {
    SetRuns& set = out[s.integer(0)];
    set.runs.push_back(s.integer(1));
    set.latest_run_id = s.text(2);  // ordered by date: the last one is the latest
  }
  return out;
}

}  // namespace

std::vector<ModelHistory> load_model_histories(Database& db, bool documents) {
  const std::map<std::int64_t, SetRuns> runs = model_set_runs(db);
  Statement s = db.prepare(fmt::format(
      "SELECT m.series, m.class, m.model_set, ms.date, ms.label, m.runtime_version, m.model, "
      "m.growth, {}, m.valid, m.adjusted_r2, m.largest_threads, m.budget, m.budget_threads, "
      "m.noise_dominates, m.budget_threads_early, m.budget_threads_late, m.points "
      "FROM models m JOIN model_sets ms ON ms.id = m.model_set "
      "ORDER BY m.series, m.class, ms.date, ms.id",
      documents ? "m.document" : "''"));
  std::vector<ModelHistory> out;
  while (s.step()) {
    const std::int64_t series = s.integer(0);
    const std::string thread_class = s.text(1);
    if (out.empty() || out.back().series != series || out.back().thread_class != thread_class) {
      out.push_back({series, thread_class, {}});
    }
    ModelPoint p;
    p.series = series;
    p.thread_class = thread_class;
    using P = ModelPoint;
    read_columns(s, 2, p, &P::model_set, &P::date, &P::label, &P::runtime_version, &P::model,
                 &P::growth, &P::document, &P::valid, &P::adjusted_r2, &P::largest_threads,
                 &P::budget, &P::budget_threads, &P::noise_dominates, &P::budget_threads_early,
                 &P::budget_threads_late, &P::points);
    if (const auto it = runs.find(p.model_set); it != runs.end()) {
      p.runs = it->second.runs;
      p.run_id = it->second.latest_run_id;
    }
    out.back().models.push_back(std::move(p));
  }
  return out;
}

std::string load_model_document(Database& db, const ModelPoint& model) {
  Statement s = db.prepare(
      "SELECT document FROM models WHERE model_set = ? AND series = ? AND class = ? AND "
      "runtime_version = ? ORDER BY compiler LIMIT 1");
  s.bind_all(model.model_set, model.series, model.thread_class, model.runtime_version);
  return s.step() ? s.text(0) : std::string();
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

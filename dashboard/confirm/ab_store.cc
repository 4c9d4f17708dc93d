#include "dashboard/confirm/ab_store.h"

#include <cmath>
#include <nlohmann/json.hpp>

namespace ompscale::dashboard {

namespace {

std::string rounds_json(const std::vector<AbRound>& rounds) {
  nlohmann::json out = nlohmann::json::array();
  const auto number = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nullptr; };
  for (const AbRound& r : rounds) {
    out.push_back({{"old", number(r.old_median)},
                   {"new", number(r.new_median)},
                   {"old_canary_ns", number(r.old_canary_ns)},
                   {"new_canary_ns", number(r.new_canary_ns)},
                   {"old_first", r.old_first}});
  }
  return out.dump();
}

}  // namespace

std::int64_t write_ab(Database& db, const AbRun& run, const std::string& label,
                      const std::string& host, const std::string& now) {
  Transaction transaction(db);
  db.prepare(
        "INSERT INTO ab_tests (date, label, host, old_build, new_build, rounds, reps, "
        "significance, threshold, command, ingested_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
      .bind_all(run.date, label, host, run.old_build.to_json(), run.new_build.to_json(),
                static_cast<std::int64_t>(run.options.rounds), run.options.reps,
                run.options.significance, run.options.threshold, nlohmann::json(run.command).dump())
      .bind(11, now)
      .run();
  const std::int64_t id = db.last_insert_rowid();
  Statement insert = db.prepare(
      "INSERT OR REPLACE INTO ab_results (ab_test, series, threads, checks_run, pairs, dropped, "
      "old_median, new_median, change, low, high, detectable, verdict, rounds) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (const AbResult& r : run.results) {
    std::vector<double> olds, news;
    for (const AbRound& p : r.rounds) {
      if (usable_pair(p, 1.5)) olds.push_back(p.old_median), news.push_back(p.new_median);
    }
    const auto geometric_mean = [](const std::vector<double>& v) {
      if (v.empty()) return std::nan("");
      double sum = 0;
      for (const double x : v) sum += std::log(x);
      return std::exp(sum / static_cast<double>(v.size()));
    };
    const AbEstimate& e = r.estimate;
    insert.reset();
    insert.bind_all(id, r.target.series.id, r.target.threads);
    if (r.target.checks_run > 0) {
      insert.bind(4, r.target.checks_run);
    } else {
      insert.bind(4, Null{});
    }
    insert.bind(5, static_cast<std::int64_t>(e.pairs))
        .bind(6, static_cast<std::int64_t>(e.dropped))
        .bind(7, std::optional<double>(geometric_mean(olds)))
        .bind(8, std::optional<double>(geometric_mean(news)))
        .bind(9, std::optional<double>(e.change))
        .bind(10, std::optional<double>(e.low))
        .bind(11, std::optional<double>(e.high))
        .bind(12, std::optional<double>(e.detectable))
        .bind(13, e.verdict)
        .bind(14, rounds_json(r.rounds))
        .run();
  }
  transaction.commit();
  return id;
}

std::vector<StoredConfirmation> load_confirmations(Database& db) {
  Statement s = db.prepare(
      "SELECT x.series, x.threads, coalesce(r.run_id, ''), t.id, t.date, x.verdict, x.change, "
      "x.low, x.high, x.detectable, x.pairs, x.dropped, t.old_build, t.new_build, t.label, "
      "x.old_median, x.new_median "
      "FROM ab_results x JOIN ab_tests t ON t.id = x.ab_test LEFT JOIN runs r ON r.id = "
      "x.checks_run ORDER BY t.date, t.id");
  std::vector<StoredConfirmation> out;
  const auto name = [](const std::string& build) {
    const nlohmann::json j = nlohmann::json::parse(build, nullptr, false);
    return j.is_object() && j.contains("name") && j["name"].is_string()
               ? j["name"].get<std::string>()
               : std::string();
  };
  while (s.step()) {
    StoredConfirmation c;
    c.series = s.integer(0);
    c.threads = static_cast<int>(s.integer(1));
    c.run_id = s.text(2);
    Confirmation& x = c.confirmation;
    x.ab_test = s.integer(3);
    x.date = s.text(4);
    x.verdict = s.text(5);
    x.change = s.real(6);
    x.low = s.real(7);
    x.high = s.real(8);
    x.detectable = s.real(9);
    x.pairs = static_cast<std::size_t>(s.integer(10));
    x.dropped = static_cast<std::size_t>(s.integer(11));
    x.old_build = name(s.text(12));
    x.new_build = name(s.text(13));
    c.label = s.text(14);
    c.old_median = s.real(15);
    c.new_median = s.real(16);
    out.push_back(std::move(c));
  }
  return out;
}

void attach_confirmations(std::vector<Finding>& findings,
                          const std::vector<StoredConfirmation>& confirmations) {
  for (Finding& f : findings) {
    if (f.series == 0 || f.run_id.empty()) continue;
    for (const StoredConfirmation& c : confirmations) {  // oldest first: the latest stays
      if (c.series == f.series && c.run_id == f.run_id &&
          (c.threads == f.threads || f.threads == 0)) {
        f.confirmation = c.confirmation;
      }
    }
  }
}

}  // namespace ompscale::dashboard

// The analysis stored with the history (analysis/derivation.h, store/derived.h): ingesting night
// by night stores what each night adds; re-deriving everything from the repetitions and model
// documents gives the same findings; a night reuses the rank tests of the nights before and makes
// only its own; other options derive anew; the retention rule for repetitions keeps every finding;
// a version-1 history migrates with its repetitions, a version-2 one with its A/B confirmations.

#include "dashboard/analysis/derivation.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "dashboard/confirm/ab_store.h"
#include "dashboard/ingest/ingest.h"
#include "dashboard/store/history.h"
#include "dashboard/store/retention.h"
#include "dashboard/store/schema.h"
#include "history_fixtures.h"
#include "modeler/fit.h"
#include "modeler/io/models_json.h"
#include "modeler/io/readers.h"

namespace ompscale::dashboard {
namespace {

namespace fs = std::filesystem;
using testing::CostOfNight;
using testing::FixtureRun;
using testing::kUnchanged;

class DerivationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::scratch_directory("ompdash-derive");
    db_path_ = (dir_ / "history.sqlite").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Ingests night n (with its models when `models`), as `ompdash ingest` does.
  void night(int n, const CostOfNight& cost, bool models = false,
             const std::vector<int>& threads = {1, 2}) {
    const FixtureRun r = testing::generated_night(n, cost, false, threads);
    const std::string results = testing::write_run(dir_, r.run_id + ".csv", r);
    std::vector<std::string> files = {results};
    if (models) {
      const modeler::Dataset data = modeler::read_dataset(results, {});
      files.push_back((dir_ / fmt::format("models{}.json", n)).string());
      test_support::spit(
          files.back(),
          modeler::format_models_json(data, modeler::fit_dataset(data, modeler::ModelerOptions{})));
    }
    Database db = open_history(db_path_);
    ingest_files(db, files, {});
  }

  // The report as the commands make it (from the stored derivation when it is current).
  std::string stored_report(const std::string& since) {
    Database db = open_history(db_path_, true);
    RegressionOptions options;
    options.since = since;
    EXPECT_TRUE(derivation_current(db, options));
    return format_findings_json(find_regressions(db, options));
  }

  // The same report from everything derived again from the repetitions and model documents.
  std::string rederived_report(const std::string& since, bool reuse_stored = false) {
    Database db = open_history(db_path_, true);
    RegressionOptions options;
    options.since = since;
    const std::vector<RunInfo> runs = list_runs(db);
    const auto states = run_states(runs);
    std::map<std::int64_t, SeriesInfo> series;
    for (SeriesInfo& s : list_series(db)) series.emplace(s.id, std::move(s));
    const Derivation d = derive(db, options, {.judge_from = "", .reuse_stored = reuse_stored});
    return format_findings_json(
        assemble_report(d.derived, ReportContext(runs, series, states, options)));
  }

  std::int64_t count(const std::string& table) {
    Database db = open_history(db_path_, true);
    Statement s = db.prepare("SELECT count(*) FROM " + table);
    s.step();
    return s.integer(0);
  }

  fs::path dir_;
  std::string db_path_;
};

// A 25% step of barrier at 2 threads from night 12, a drift of `for` at 1 thread from night 20.
double planted(int n, const std::string& construct, int threads) {
  if (construct == "barrier" && threads == 2 && n >= 12) return 1.25;
  if (construct == "for" && threads == 1 && n >= 20) return std::pow(1.02, n - 19);
  return 1.0;
}

TEST_F(DerivationTest, RederivingGivesTheSameFindingsAsWhatTheNightsStored) {
  for (int n = 0; n < 34; ++n) {
    night(n, [&](const std::string& c, int t) { return planted(n, c, t); });
  }
  const std::string all = stored_report(testing::night(0));
  // The planted step is there (and the drift, as a drift or steps): the comparison compares
  // findings, not two empty reports.
  EXPECT_NE(all.find("\"step\""), std::string::npos) << all;
  EXPECT_EQ(rederived_report(testing::night(0)), all);
  EXPECT_EQ(rederived_report(""), stored_report(""));
  EXPECT_EQ(rederived_report(testing::night(15)), stored_report(testing::night(15)));
}

TEST_F(DerivationTest, ModelChecksStoredNightByNightAreTheRederivedOnes) {
  const std::vector<int> threads = {1, 2, 4, 8, 16, 32, 64};
  for (int n = 0; n < 10; ++n) {
    night(
        n,
        [&](const std::string& c, int t) {
          if (c != "barrier") return 1.0;
          return n < 6 ? 0.2 + 0.1 * std::log2(t) : 0.2 + 0.05 * t;
        },
        true, threads);
  }
  const std::string all = stored_report(testing::night(0));
  EXPECT_NE(all.find("growth change"), std::string::npos) << all;
  EXPECT_NE(all.find("outside interval"), std::string::npos) << all;
  EXPECT_EQ(rederived_report(testing::night(0)), all);
  // The comparisons were stored as the nights came: deriving again parses no document.
  EXPECT_GT(count("interval_comparisons"), 0);
  Database db = open_history(db_path_, true);
  EXPECT_TRUE(derive(db, RegressionOptions{}).new_comparisons.empty());
  EXPECT_FALSE(derive(db, RegressionOptions{}, {.judge_from = "", .reuse_stored = false})
                   .new_comparisons.empty());
}

TEST_F(DerivationTest, ANightAddsItsOwnTestsAndReusesTheOthers) {
  for (int n = 0; n < 20; ++n) night(n, kUnchanged);
  Database db = open_history(db_path_);
  // Derived again from the same history: every test was stored, none is made anew.
  const Derivation again = derive(db, RegressionOptions{});
  ASSERT_FALSE(again.derived.judged.empty());
  for (const JudgedRun& j : again.derived.judged) EXPECT_TRUE(j.stored);
  // Night 20 written without its derivation: deriving makes its six tests, and only those.
  const FixtureRun r = testing::generated_night(20, kUnchanged);
  const IngestBatch batch = read_inputs({testing::write_run(dir_, "n20.csv", r)}, {});
  write_batch(db, batch, "", "2026-10-21T02:00:00Z");
  EXPECT_FALSE(derivation_current(db, RegressionOptions{}));
  const Derivation next = derive(db, RegressionOptions{});
  const std::int64_t latest = list_runs(db).back().id;
  std::size_t made = 0;
  for (const JudgedRun& j : next.derived.judged) {
    if (j.stored) continue;
    ++made;
    EXPECT_EQ(j.run, latest);
    EXPECT_EQ(j.baseline, 5);
  }
  EXPECT_EQ(made, 6u);
}

TEST_F(DerivationTest, OtherOptionsThanTheStoredOnesDeriveAnew) {
  for (int n = 0; n < 14; ++n) {
    night(n, [&](const std::string& c, int t) { return planted(n, c, t); });
  }
  Database db = open_history(db_path_, true);
  RegressionOptions wider;
  wider.threshold = 0.5;  // the 25% step is below it
  EXPECT_FALSE(derivation_current(db, wider));
  wider.since = testing::night(0);
  const RegressionReport report = find_regressions(db, wider);
  for (const Finding& f : report.findings) EXPECT_FALSE(f.worse) << f.detail;
  RegressionOptions usual;
  usual.since = testing::night(0);
  EXPECT_GT(find_regressions(db, usual).regressions(), 0u);
}

TEST_F(DerivationTest, PruningOldRepetitionsKeepsEveryFinding) {
  for (int n = 0; n < 40; ++n) {
    night(n, [&](const std::string& c, int t) { return planted(n, c, t); });
  }
  const std::string all = stored_report(testing::night(0));
  const std::string last = stored_report("");
  const std::int64_t summaries = count("summaries");
  const std::int64_t repetitions = count("repetitions");
  {
    Database db = open_history(db_path_);
    const PruneResult r = prune_repetitions(db, {.older_than_days = 10, .keep_latest = 5});
    EXPECT_EQ(r.cutoff, "2026-10-31T01:00:00Z");  // 10 days before 2026-11-10
    EXPECT_EQ(r.runs, 30);                        // 2026-10-01 .. 10-30
    EXPECT_EQ(r.configurations, 30 * 6);
    vacuum(db);
  }
  EXPECT_EQ(count("summaries"), summaries);
  EXPECT_EQ(count("repetitions"), repetitions - 30 * 6);
  EXPECT_EQ(stored_report(testing::night(0)), all);
  EXPECT_EQ(stored_report(""), last);
  // Re-derived with the stored tests of the pruned runs: the same findings again.
  EXPECT_EQ(rederived_report(testing::night(0), true), all);
  // The next night is judged as before: its baseline's repetitions are all there.
  night(40, kUnchanged);
  EXPECT_EQ(rederived_report(""), stored_report(""));
}

TEST_F(DerivationTest, TheLatestRunsOfAKernelKeepTheirRepetitionsWhateverTheirAge) {
  for (int n = 0; n < 8; ++n) night(n, kUnchanged);
  Database db = open_history(db_path_);
  const PruneResult r = prune_repetitions(db, {.older_than_days = 1, .keep_latest = 5});
  EXPECT_EQ(r.runs, 6);
  EXPECT_EQ(r.configurations, 3 * 6);  // nights 0-2: the latest five (3-7) keep theirs
}

TEST_F(DerivationTest, AVersionOneHistoryMigratesWithItsRepetitions) {
  {
    Database db = Database::open(db_path_);
    migrate(db, history_migrations().first(1));
    db.exec(
        "INSERT INTO runs (id, run_id, host, fingerprint, date, label, platform, runtimes, "
        "compilers, ompscale_version, status, source, command, workers, environment, "
        "unusual_phase, phase_note, ingested_at) VALUES (1, 'r1', 'h', 'f', "
        "'2026-11-01T01:00:00Z', '', 'vm', '', '', '', 'complete', 'x.csv', '[]', '{}', '{}', 0, "
        "'', '2026-11-01T02:00:00Z');"
        "INSERT INTO series (id, key, key_json, construct, method, metric, bind, places, runtime, "
        "platform, param, param_value, unit) VALUES (1, 'k', '{\"construct\": \"barrier\"}', "
        "'barrier', 'direct', 'avg_cost', '', '', 'libgomp', 'vm', '', '', 'us');");
    const std::vector<double> values = {1.5, 2.5, 3.5};
    db.prepare(
          "INSERT INTO summaries VALUES (1, 1, 2, 'PO2', '12', 'gcc', 3, 3, 2.5, 2, 3, 1.5, 3.5, "
          "2.5, 1, NULL, 'unknown', 0, ?)")
        .bind_blob(1, to_blob(values))
        .run();
  }
  Database db = open_history(db_path_);
  EXPECT_EQ(schema_version(db), history_migrations().back().version);
  EXPECT_EQ(load_samples(db, 1, 1, 2), (std::vector<double>{1.5, 2.5, 3.5}));
  EXPECT_EQ(load_histories(db)[0].points[0].median, 2.5);
  Statement columns = db.prepare(
      "SELECT count(*) FROM pragma_table_info('summaries') WHERE "
      "name = 'samples'");
  columns.step();
  EXPECT_EQ(columns.integer(0), 0) << "the repetitions moved out of the summaries";
}

// A history of schema version 2 (runs with their file's run id, A/B tables; the repetitions still
// in the summaries, no stored analysis) migrates to version 3 with its repetitions, and an A/B it
// holds still confirms the finding it checked, derived in memory or stored.
TEST_F(DerivationTest, AVersionTwoHistoryMigratesWithItsABs) {
  for (int n = 0; n < 8; ++n) night(n, kUnchanged);
  night(8, [](const std::string& c, int t) { return c == "barrier" && t == 2 ? 1.4 : 1.0; });
  const std::string v2 = (dir_ / "v2.sqlite").string();
  {
    // The same nights as version 2 kept them.
    Database db = Database::open(v2);
    migrate(db, history_migrations().first(2));
    db.exec(fmt::format("ATTACH DATABASE '{}' AS v3", db_path_));
    db.exec(
        "INSERT INTO runs SELECT * FROM v3.runs;"
        "INSERT INTO series SELECT * FROM v3.series;"
        "INSERT INTO summaries SELECT s.*, r.samples FROM v3.summaries s JOIN v3.repetitions r "
        "USING (run, series, threads, runtime_version, compiler);"
        "DETACH DATABASE v3;");
    Statement target = db.prepare(
        "SELECT (SELECT id FROM series WHERE construct = 'barrier'), "
        "(SELECT id FROM runs WHERE run_id = 'n8')");
    ASSERT_TRUE(target.step());
    AbRun ab;
    ab.date = "2026-12-01T00:00:00Z";
    ab.old_build.name = "night 7";
    ab.new_build.name = "night 8";
    AbResult result;
    result.target.series.id = target.integer(0);
    result.target.threads = 2;
    result.target.checks_run = target.integer(1);
    result.estimate.verdict = "slower";
    result.estimate.change = 0.4;
    result.estimate.low = 0.35;
    result.estimate.high = 0.45;
    result.estimate.pairs = 10;
    ab.results.push_back(result);
    write_ab(db, ab, "", "h", ab.date);
  }
  Database db = open_history(v2);
  EXPECT_EQ(schema_version(db), 3);
  Statement moved = db.prepare(
      "SELECT (SELECT count(*) FROM repetitions), (SELECT count(*) FROM summaries), "
      "(SELECT count(*) FROM runs WHERE file_run_id = run_id)");
  ASSERT_TRUE(moved.step());
  EXPECT_EQ(moved.integer(0), 9 * 6);
  EXPECT_EQ(moved.integer(1), 9 * 6);
  EXPECT_EQ(moved.integer(2), 9);
  const auto confirmed = [&](const char* how) {
    std::vector<Finding> found = find_regressions(db).findings;
    std::erase_if(found, [](const Finding& f) { return !f.worse; });
    ASSERT_EQ(found.size(), 1u) << how;
    EXPECT_EQ(found[0].construct, "barrier") << how;
    EXPECT_EQ(found[0].run_id, "n8") << how;
    ASSERT_TRUE(found[0].confirmation.has_value()) << how;
    EXPECT_EQ(found[0].confirmation->verdict, "slower") << how;
    EXPECT_TRUE(found[0].confirmed()) << how;
  };
  EXPECT_FALSE(derivation_current(db, {}));
  confirmed("derived in memory");
  store_derivation(db, {}, "2026-12-01T01:00:00Z");
  EXPECT_TRUE(derivation_current(db, {}));
  confirmed("from the stored analysis");
}

}  // namespace
}  // namespace ompscale::dashboard

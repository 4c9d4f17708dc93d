// The history store and `ompdash ingest`: kinds detected, summaries right, idempotent, all or
// nothing, concurrent ingests, malformed files leave the database as it was.

#include "dashboard/ingest/ingest.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/text.h"
#include "dashboard/ingest/read_models.h"
#include "dashboard/store/history.h"
#include "dashboard/store/schema.h"
#include "history_fixtures.h"
#include "modeler/fit.h"
#include "modeler/io/models_json.h"
#include "modeler/io/readers.h"

namespace ompscale::dashboard {
namespace {

namespace fs = std::filesystem;
using testing::FixtureConfig;
using testing::FixtureRun;
using testing::night;

class IngestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::scratch_directory("ompdash-ingest");
    db_path_ = (dir_ / "history.sqlite").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  static FixtureRun run(const std::string& id, const std::string& date, double barrier = 1.0) {
    FixtureRun r;
    r.run_id = id;
    r.date = date;
    FixtureConfig b;
    b.values = {barrier, barrier * 1.1, barrier * 0.9, barrier * 1.2, barrier * 0.8};
    b.invalid = {false, false, false, false, true};
    FixtureConfig s = b;
    s.construct = "single";
    s.values = {2.0, 2.0, 2.0, 2.0, 2.0};
    s.invalid.clear();
    r.configs = {b, s};
    return r;
  }

  std::vector<IngestedItem> ingest(const std::vector<std::string>& files,
                                   const std::string& label = "") {
    Database db = open_history(db_path_);
    IngestOptions options;
    options.label = label;
    return ingest_files(db, files, options);
  }

  // Everything the history holds, as text: equal dumps mean nothing changed.
  std::string dump() {
    if (!fs::exists(db_path_)) return "(no database)";
    Database db = open_history(db_path_, true);
    std::string out;
    for (const char* table :
         {"runs", "series", "summaries", "repetitions", "model_sets", "model_set_runs", "models",
          "app_reports", "app_regions", "app_points"}) {
      Statement s = db.prepare(fmt::format("SELECT * FROM {} ORDER BY 1, 2", table));
      out += fmt::format("[{}]\n", table);
      while (s.step()) {
        for (int c = 0; c < s.columns(); ++c) out += s.text(c) + "|";
        out += "\n";
      }
    }
    return out;
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

TEST_F(IngestTest, ResultsWithSidecarBecomeARunWithSummaries) {
  const std::string file = testing::write_run(dir_, "a.csv", run("r1", "2026-11-22T01:00:00Z"));
  const auto items = ingest({file}, "nightly");
  ASSERT_EQ(items.size(), 1u);
  EXPECT_TRUE(items[0].added);
  Database db = open_history(db_path_, true);
  const std::vector<RunInfo> runs = list_runs(db);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].run_id, "r1");
  EXPECT_EQ(runs[0].host, "node1");  // from the sidecar
  EXPECT_EQ(runs[0].label, "nightly");
  EXPECT_EQ(runs[0].runtimes, "libgomp 12.2.0");
  EXPECT_EQ(runs[0].configurations, 2);
  const std::vector<SeriesInfo> series = list_series(db);
  ASSERT_EQ(series.size(), 2u);
  EXPECT_EQ(series[0].construct, "barrier");
  EXPECT_EQ(series[0].threads, std::vector<int>{2});
  // The series key leaves out the runtime version and compiler: a new build continues it.
  EXPECT_EQ(series[0].key.find("runtime_version"), std::string::npos);
  const std::vector<SeriesHistory> histories = load_histories(db);
  ASSERT_EQ(histories.size(), 2u);
  const HistoryPoint& p = histories[0].points.at(0);
  EXPECT_EQ(p.n, 4);  // the valid=0 value is counted, not used
  EXPECT_EQ(p.total, 5);
  EXPECT_DOUBLE_EQ(p.median, 1.05);
  EXPECT_DOUBLE_EQ(p.min, 0.9);
  EXPECT_DOUBLE_EQ(p.max, 1.2);
  EXPECT_DOUBLE_EQ(p.valid_share, 0.8);
  EXPECT_EQ(p.canary_state, "typical");
  EXPECT_EQ(load_samples(db, p.run, histories[0].series, 2),
            (std::vector<double>{1.0, 1.1, 0.9, 1.2}));
}

// A configuration whose every value was marked valid=0 (a slow phase throughout, on a loaded
// machine) has no samples: an empty blob, where it was NULL and the ingest failed on the
// summaries' NOT NULL constraint.
TEST_F(IngestTest, AConfigurationWithoutValidValuesIsIngested) {
  FixtureRun r = run("r1", "2026-11-22T01:00:00Z");
  r.configs[1].invalid.assign(r.configs[1].values.size(), true);
  const std::string file = testing::write_run(dir_, "a.csv", r);
  ASSERT_EQ(ingest({file}).size(), 1u);
  Database db = open_history(db_path_, true);
  const std::vector<SeriesHistory> histories = load_histories(db);
  ASSERT_EQ(histories.size(), 2u);
  const HistoryPoint& p = histories[1].points.at(0);
  EXPECT_EQ(p.n, 0);
  EXPECT_EQ(p.total, 5);
  EXPECT_TRUE(load_samples(db, p.run, histories[1].series, 2).empty());
}

// A damaged history (a thread count that is no whole number) is an InputError naming the
// database and the series, not an exception from std::stoi.
TEST_F(IngestTest, MalformedThreadCountInTheHistoryNamesTheDatabaseAndSeries) {
  ingest({testing::write_run(dir_, "a.csv", run("r1", "2026-11-22T01:00:00Z"))});
  Database db = open_history(db_path_);
  db.exec("UPDATE summaries SET threads = '2x' WHERE series = (SELECT min(id) FROM series)");
  try {
    list_series(db);
    ADD_FAILURE() << "a thread count '2x' was read";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), db_path_);
    EXPECT_THAT(e.what(), ::testing::MatchesRegex(".*history.sqlite: thread counts of series "
                                                  "'.*barrier.*': '2x' is not a list of whole "
                                                  "numbers"));
  }
}

TEST_F(IngestTest, IngestingTwiceChangesNothing) {
  const std::string a = testing::write_run(dir_, "a.csv", run("r1", "2026-11-22T01:00:00Z"));
  const std::string b = testing::write_run(dir_, "b.csv", run("r2", "2026-11-23T01:00:00Z"));
  ingest({a, b});
  const std::string before = dump();
  const auto items = ingest({b, a});
  for (const IngestedItem& item : items) EXPECT_FALSE(item.added) << item.source;
  EXPECT_EQ(dump(), before);
}

TEST_F(IngestTest, TheSameFilesRunWithOtherContentIsRefusedAndNothingChanges) {
  const std::string a = testing::write_run(dir_, "a.csv", run("r1", "2026-11-22T01:00:00Z"));
  ingest({a});
  const std::string before = dump();
  const std::string b = testing::write_run(dir_, "b.csv", run("r2", "2026-11-23T01:00:00Z"));
  // a.csv changed (resumed with the same --run-id, edited) since it was ingested.
  testing::write_run(dir_, "a.csv", run("r1", "2026-11-22T01:00:00Z", 5.0));
  try {
    ingest({b, a});
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("from this file (r1), with other content"));
  }
  EXPECT_EQ(dump(), before);  // r2 was not added either: one transaction
}

// An older ompbench named runs by their start second: two runs started together (a Slurm array's
// tasks on one node, two builds measured at once) wrote the same id into two files. Both reach the
// history, apart, and the models of each are linked to its own run.
TEST_F(IngestTest, RunsOfTwoFilesThatShareAnIdAreBothKept) {
  const std::string a = testing::write_run(dir_, "a.csv", run("r20261128T181303Z", night(0)));
  const std::string b = testing::write_run(dir_, "b.csv", run("r20261128T181303Z", night(0), 2.0));
  const auto items = ingest({a, b});
  ASSERT_EQ(items.size(), 2u);
  EXPECT_TRUE(items[0].added && items[1].added);
  EXPECT_EQ(items[0].name, "r20261128T181303Z");
  EXPECT_EQ(items[1].name, "r20261128T181303Z~2");
  for (const IngestedItem& item : ingest({b, a})) EXPECT_FALSE(item.added) << item.source;
  Database db = open_history(db_path_, true);
  const auto runs = list_runs(db);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_NE(runs[0].run_id, runs[1].run_id);
  // The barrier medians differ by the 2x of b's values: each run kept its own.
  const auto histories = load_histories(db);
  ASSERT_FALSE(histories.empty());
  ASSERT_EQ(histories[0].points.size(), 2u);
  EXPECT_NEAR(histories[0].points[1].median / histories[0].points[0].median, 2.0, 1e-9);
}

TEST_F(IngestTest, ModelsOfOneOfTwoRunsThatShareAnIdAreLinkedToIt) {
  FixtureRun first = run("r20261128T181303Z", night(0));
  FixtureRun second = run("r20261128T181303Z", night(0), 3.0);
  for (FixtureRun* r : {&first, &second}) {
    r->configs.clear();
    for (int t : {1, 2, 4}) {
      FixtureConfig c;
      c.threads = t;
      c.values = testing::noisy((r == &first ? 1.0 : 3.0) * t, 0.01, 5, t);
      r->configs.push_back(c);
    }
  }
  const std::string a = testing::write_run(dir_, "a.csv", first);
  const std::string b = testing::write_run(dir_, "b.csv", second);
  const modeler::Dataset data = modeler::read_dataset(b, {});
  const std::string models = (dir_ / "models.json").string();
  test_support::spit(models, modeler::format_models_json(
                                 data, modeler::fit_dataset(data, modeler::ModelerOptions{})));
  ingest({a, b, models});
  Database db = open_history(db_path_, true);
  const auto histories = load_model_histories(db);
  ASSERT_EQ(histories.size(), 1u);
  const auto runs = list_runs(db);
  std::int64_t second_id = 0;
  for (const RunInfo& r : runs) second_id = r.run_id.ends_with("~2") ? r.id : second_id;
  EXPECT_EQ(histories[0].models.at(0).runs, std::vector<std::int64_t>{second_id});
}

// `ompbench import-epcc` writes rows without a run id (EPCC prints none) and without timestamps:
// one run named by its content, dated by --date (else the file's time).
TEST_F(IngestTest, EpccImportsAreIngested) {
  const std::string epcc = (dir_ / "epcc.csv").string();
  const auto imported = test_support::run_program(
      {OMPSCALE_OMPBENCH_BIN, "import-epcc",
       std::string(OMPSCALE_TEST_DATA) + "/epcc/syncbench_v4_2threads.txt", "--runtime", "libgomp",
       "-o", epcc},
      dir_);
  ASSERT_EQ(imported.status, 0) << imported.err;
  IngestOptions options;
  options.reports.date = "2026-11-01T00:00:00Z";
  Database db = open_history(db_path_);
  const auto items = ingest_files(db, {epcc}, options);
  ASSERT_EQ(items.size(), 1u);
  EXPECT_TRUE(items[0].added);
  EXPECT_TRUE(items[0].name.starts_with("import-")) << items[0].name;
  EXPECT_THAT(items[0].note, ::testing::HasSubstr("2026-11-01T00:00:00Z"));
  const auto runs = list_runs(db);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].date, "2026-11-01T00:00:00Z");
  bool barrier = false;
  for (const SeriesInfo& s : list_series(db))
    barrier |= s.construct == "barrier" && s.method == "epcc" && s.metric == "overhead";
  EXPECT_TRUE(barrier);
  // The same file again is the same run; without --date it is dated by the file's time.
  EXPECT_FALSE(ingest_files(db, {epcc}, options)[0].added);
  EXPECT_FALSE(ingest_files(db, {epcc}, {})[0].added);
}

TEST_F(IngestTest, AFileThatIsNoHistoryIsNamedAsSuch) {
  for (const std::string& content : std::vector<std::string>{"", "not a database\n"}) {
    const fs::path file = dir_ / "empty-file";
    test_support::spit(file, content);
    try {
      open_history(file.string(), true);
      FAIL() << "expected an error";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()).rfind(file.string() + ": not an ompdash history", 0), 0u)
          << e.what();
    }
  }
}

// A configuration none of whose values was valid (tasks of a Slurm array sharing a node measure
// each other) is kept with n = 0: its empty repetitions were bound as NULL and the whole ingest
// failed ("NOT NULL constraint failed: summaries.samples").
TEST_F(IngestTest, AConfigurationWithoutValidValuesIsKept) {
  FixtureRun r = run("r1", "2026-11-22T01:00:00Z");
  r.configs[0].invalid.assign(r.configs[0].values.size(), true);
  const auto items = ingest({testing::write_run(dir_, "a.csv", r)});
  ASSERT_EQ(items.size(), 1u);
  EXPECT_TRUE(items[0].added);
  Database db = open_history(db_path_, true);
  const auto histories = load_histories(db);
  ASSERT_EQ(histories.size(), 2u);
  EXPECT_EQ(histories[0].points[0].n, 0);
  EXPECT_EQ(histories[0].points[0].total, 5);
  EXPECT_TRUE(load_samples(db, histories[0].points[0].run, histories[0].series, 2).empty());
}

TEST_F(IngestTest, AnUnusualPhaseIsKeptPerRunAndConfiguration) {
  FixtureRun r = run("r1", "2026-11-22T01:00:00Z");
  r.unusual_phase = true;
  ingest({testing::write_run(dir_, "a.csv", r)});
  Database db = open_history(db_path_, true);
  EXPECT_TRUE(list_runs(db)[0].unusual_phase);
  EXPECT_EQ(load_histories(db)[0].points[0].canary_state, "unusual");
}

TEST_F(IngestTest, ResultsWithoutSidecarAreDatedByTheirRows) {
  const fs::path file = dir_ / "plain.csv";
  test_support::spit(file, testing::results_csv(run("r9", "2026-11-24T02:00:00Z")));
  ingest({file.string()});
  Database db = open_history(db_path_, true);
  const auto runs = list_runs(db);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].date, "2026-11-24T02:00:00Z");
  EXPECT_EQ(runs[0].host, "");
}

TEST_F(IngestTest, MalformedFilesNameFileAndLineAndChangeNothing) {
  const std::string good = testing::write_run(dir_, "a.csv", run("r1", "2026-11-22T01:00:00Z"));
  ingest({good});
  const std::string before = dump();
  std::string csv = testing::results_csv(run("r2", "2026-11-23T01:00:00Z"));
  // Line 4 (header is line 1): a valid value that is not a number.
  std::vector<std::string> lines = split(csv, '\n');
  lines[3].replace(lines[3].find(",0.900000,"), 10, ",abc,");
  std::string broken;
  for (const std::string& l : lines) broken += l + (l.empty() ? "" : "\n");
  const fs::path bad = dir_ / "bad.csv";
  test_support::spit(bad, broken);
  try {
    ingest({testing::write_run(dir_, "b.csv", run("r3", "2026-11-24T01:00:00Z")), bad.string()});
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), bad.string() + ":4: value 'abc' is not a finite number");
  }
  EXPECT_EQ(dump(), before);

  const fs::path truncated = dir_ / "models.json";
  test_support::spit(truncated, "{\"parameter\": \"t\",\n \"kernels\": [\n");
  EXPECT_THROW(ingest({truncated.string()}), InputError);
  EXPECT_EQ(dump(), before);
}

TEST_F(IngestTest, OwnFilesThatAreNotIngestedSaySo) {
  const std::string a = testing::write_run(dir_, "a.csv", run("r1", "2026-11-22T01:00:00Z"));
  try {
    ingest({a + ".meta.json"});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("an ompbench sidecar"), std::string::npos) << e.what();
  }
  const fs::path other = dir_ / "table.csv";
  test_support::spit(other, "x,y\n1,2\n");
  try {
    ingest({other.string()});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(other.string() + ":1: not an ompbench results CSV", 0),
              0u)
        << e.what();
  }
}

// models.json fitted on a results file: dated by that file's runs, linked to them.
TEST_F(IngestTest, ModelsAreLinkedToTheRunsTheyWereFittedOn) {
  FixtureRun r = run("r1", "2026-11-22T01:00:00Z");
  r.configs.clear();
  for (int t : {1, 2, 4, 8}) {
    FixtureConfig c;
    c.threads = t;
    c.values = testing::noisy(0.2 + 0.1 * std::log2(t), 0.01, 5, t);
    r.configs.push_back(c);
  }
  const std::string results = testing::write_run(dir_, "a.csv", r);
  const modeler::Dataset data = modeler::read_dataset(results, {});
  const std::string models = (dir_ / "models.json").string();
  test_support::spit(models, modeler::format_models_json(
                                 data, modeler::fit_dataset(data, modeler::ModelerOptions{})));
  // Models before their runs: refused, naming the run.
  EXPECT_THROW(ingest({models}), InputError);
  ingest({results, models});
  Database db = open_history(db_path_, true);
  const auto sets = list_model_sets(db);
  ASSERT_EQ(sets.size(), 1u);
  EXPECT_EQ(sets[0].date, "2026-11-22T01:00:00Z");
  const auto histories = load_model_histories(db);
  ASSERT_EQ(histories.size(), 1u);
  const ModelPoint& m = histories[0].models.at(0);
  EXPECT_EQ(m.growth, "logarithmic");
  EXPECT_EQ(m.largest_threads, 8.0);
  EXPECT_EQ(m.runs.size(), 1u);
  // The stored document predicts like the original.
  const modeler::ClassModel back = class_model_from_document(m.document);
  EXPECT_NEAR(back.model.evaluate(16), 0.6, 0.03);
  EXPECT_FALSE(back.predictive.components.empty());
  EXPECT_FALSE(ingest({models})[0].added);
}

// A history of the first schema (before runs had an identity apart from their file's run id, and
// before A/B comparisons) is brought up to date with its runs.
TEST(HistorySchema, AFirstVersionHistoryMigratesWithItsRuns) {
  const fs::path path = fs::temp_directory_path() / fmt::format("ompdash-v1-{}.sqlite", getpid());
  fs::remove(path);
  {
    Database db = Database::open(path.string());
    migrate(db, history_migrations().first(1));
    db.exec(
        "INSERT INTO runs (run_id, host, fingerprint, date, label, platform, runtimes, compilers, "
        "ompscale_version, status, source, command, workers, environment, unusual_phase, "
        "phase_note, ingested_at) VALUES ('r1', 'h', 'f', '2026-11-01T00:00:00Z', '', 'vm', '', "
        "'', '', 'complete', 'a.csv', '[]', '{}', '{}', 0, '', '')");
  }
  Database db = open_history(path.string());
  EXPECT_EQ(schema_version(db), history_migrations().back().version);
  Statement s = db.prepare("SELECT run_id, file_run_id, source_path FROM runs");
  ASSERT_TRUE(s.step());
  EXPECT_EQ(s.text(0), "r1");
  EXPECT_EQ(s.text(1), "r1");
  EXPECT_EQ(s.text(2), "a.csv");
  Statement ab = db.prepare("SELECT count(*) FROM ab_tests");
  ASSERT_TRUE(ab.step());
  EXPECT_EQ(ab.integer(0), 0);
  fs::remove(path);
  fs::remove(path.string() + "-wal");
  fs::remove(path.string() + "-shm");
}

TEST(HistorySchema, MigratesStepByStepAndRefusesNewerOrForeignDatabases) {
  const fs::path path =
      fs::temp_directory_path() / fmt::format("ompdash-schema-{}.sqlite", getpid());
  fs::remove(path);
  const std::array<Migration, 2> migrations = {{
      {1, "t", "CREATE TABLE t (a INTEGER)"},
      {2, "t.b", "ALTER TABLE t ADD COLUMN b TEXT NOT NULL DEFAULT 'x'"},
  }};
  {
    Database db = Database::open(path.string());
    migrate(db, std::span(migrations).first(1));
    db.exec("INSERT INTO t (a) VALUES (7)");
    migrate(db, migrations);
    EXPECT_EQ(schema_version(db), 2);
    Statement s = db.prepare("SELECT a, b FROM t");
    ASSERT_TRUE(s.step());
    EXPECT_EQ(s.integer(0), 7);
    EXPECT_EQ(s.text(1), "x");
    // An older ompdash (knowing version 1 only) must not touch it.
    EXPECT_THROW(migrate(db, std::span(migrations).first(1)), std::runtime_error);
  }
  fs::remove(path);
  {
    Database db = Database::open(path.string());
    db.exec("CREATE TABLE other (x)");
    EXPECT_THROW(migrate(db, history_migrations()), std::runtime_error);
  }
  fs::remove(path);
  fs::remove(path.string() + "-wal");
  fs::remove(path.string() + "-shm");
}

}  // namespace
}  // namespace ompscale::dashboard

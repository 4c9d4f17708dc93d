// `ompdash ingest` and `ompdash list` as processes: exit statuses, one-line errors, concurrent
// ingests into one database, ompscan reports made by ompscan itself.

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "../support/process.h"
#include "history_fixtures.h"

namespace ompscale::dashboard {
namespace {

namespace fs = std::filesystem;
using test_support::run_program;

class IngestCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::scratch_directory("ompdash-cli");
    db_ = (dir_ / "history.sqlite").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  test_support::Outcome ompdash(std::vector<std::string> args) {
    args.insert(args.begin(), OMPSCALE_OMPDASH_BIN);
    return run_program(args, dir_);
  }

  std::string run_file(const std::string& id, int day) {
    testing::FixtureRun r;
    r.run_id = id;
    r.date = testing::night(day);
    testing::FixtureConfig c;
    c.values = testing::noisy(1.0, 0.05, 20, static_cast<unsigned>(day));
    r.configs = {c};
    return testing::write_run(dir_, id + ".csv", r);
  }

  nlohmann::json list() {
    const auto out = ompdash({"list", "--db", db_, "--format", "json"});
    EXPECT_EQ(out.status, 0) << out.err;
    return nlohmann::json::parse(out.out);
  }

  fs::path dir_;
  std::string db_;
};

TEST_F(IngestCliTest, BadInputIsOneLineExitTwoAndCreatesNothing) {
  const fs::path bad = dir_ / "bad.csv";
  test_support::spit(bad, testing::results_csv({}) + "barrier,direct\n");
  const auto out = ompdash({"ingest", bad.string(), "--db", db_});
  EXPECT_EQ(out.status, 2);
  EXPECT_EQ(out.err, "ompdash: " + bad.string() + ":2: expected 21 fields, found 2\n");
  EXPECT_FALSE(fs::exists(db_));
  const auto missing = ompdash({"ingest", (dir_ / "nope.csv").string(), "--db", db_});
  EXPECT_EQ(missing.status, 2);
  EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1) << missing.err;
  EXPECT_EQ(ompdash({"ingest", "--db", db_}).status, 2);  // no files
}

TEST_F(IngestCliTest, FourConcurrentIngestsLoseNothing) {
  // Each process ingests its own run and one shared run: every run arrives exactly once.
  const std::string shared = run_file("shared", 0);
  std::vector<std::unique_ptr<test_support::ChildProcess>> children;
  for (int i = 0; i < 4; ++i) {
    const std::string own = run_file(fmt::format("own{}", i), i + 1);
    for (int j = 0; j < 3; ++j) run_file(fmt::format("own{}-{}", i, j), 10 + 3 * i + j);
    std::vector<std::string> argv = {OMPSCALE_OMPDASH_BIN, "ingest", own, shared, "--db", db_};
    for (int j = 0; j < 3; ++j) argv.push_back((dir_ / fmt::format("own{}-{}.csv", i, j)).string());
    children.push_back(std::make_unique<test_support::ChildProcess>(
        argv, "/dev/null", dir_ / fmt::format("c{}.out", i), dir_ / fmt::format("c{}.err", i)));
  }
  for (std::size_t i = 0; i < children.size(); ++i) {
    EXPECT_EQ(children[i]->wait(), 0) << test_support::slurp(dir_ / fmt::format("c{}.err", i));
  }
  const nlohmann::json history = list();
  EXPECT_EQ(history["runs"].size(), 17u);  // 4 x 4 own runs + the shared one
  std::set<std::string> ids;
  for (const auto& r : history["runs"]) ids.insert(r["run_id"].get<std::string>());
  EXPECT_EQ(ids.size(), 17u);
  EXPECT_EQ(ids.count("shared"), 1u);
}

// Two ompbench runs started in the same second: both reach the history (an older ompbench named
// them both by that second, and the second ingest was refused).
TEST_F(IngestCliTest, TwoRunsStartedInTheSameSecondBothReachTheHistory) {
  for (int attempt = 0; attempt < 5; ++attempt) {
    std::vector<std::unique_ptr<test_support::ChildProcess>> children;
    std::vector<std::string> files;
    for (const char* name : {"a", "b"}) {
      files.push_back((dir_ / fmt::format("{}{}.csv", name, attempt)).string());
      children.push_back(std::make_unique<test_support::ChildProcess>(
          std::vector<std::string>{OMPSCALE_OMPBENCH_BIN, "--construct", "barrier", "--threads",
                                   "1", "--reps", "20", "--canary-store",
                                   (dir_ / "canaries.json").string(), "-o", files.back()},
          "/dev/null", dir_ / fmt::format("{}.out", name), dir_ / fmt::format("{}.err", name)));
    }
    for (auto& child : children) ASSERT_EQ(child->wait(), 0);
    std::vector<std::string> started;
    for (const std::string& file : files) {
      started.push_back(
          nlohmann::json::parse(test_support::slurp(file + ".meta.json"))["runs"][0]["started"]);
    }
    if (started[0] != started[1]) continue;  // a second boundary between them: again
    const auto out = ompdash({"ingest", files[0], files[1], "--db", db_});
    ASSERT_EQ(out.status, 0) << out.err;
    const nlohmann::json history = list();
    std::set<std::string> ids;
    for (const auto& r : history["runs"]) ids.insert(r["run_id"].get<std::string>());
    EXPECT_EQ(ids.size(), 2u);
    return;
  }
  FAIL() << "no two runs started in the same second in five attempts";
}

TEST_F(IngestCliTest, OmpscanReportsBecomeApplicationHistory) {
  const std::string report = testing::ompscan_report(dir_);
  const auto out = ompdash({"ingest", report, "--db", db_, "--label", "<b>nightly</b>", "--date",
                            "2026-11-22T01:00:00Z"});
  ASSERT_EQ(out.status, 0) << out.err;
  EXPECT_NE(out.out.find("added report"), std::string::npos) << out.out;
  const nlohmann::json history = list();
  ASSERT_EQ(history["applications"].size(), 1u);
  const auto& app = history["applications"][0];
  EXPECT_EQ(app["date"], "2026-11-22T01:00:00Z");
  EXPECT_EQ(app["label"], "<b>nightly</b>");
  EXPECT_GT(app["regions"].get<int>(), 0);
  const auto again = ompdash({"ingest", report, "--db", db_});
  EXPECT_NE(again.out.find("already in history report"), std::string::npos) << again.out;
}

TEST_F(IngestCliTest, ListShowsRunsAndKernels) {
  ASSERT_EQ(ompdash({"ingest", run_file("r1", 1), run_file("r2", 2), "--db", db_}).status, 0);
  const auto out = ompdash({"list", "--db", db_});
  ASSERT_EQ(out.status, 0) << out.err;
  EXPECT_NE(out.out.find("Runs (2)"), std::string::npos) << out.out;
  EXPECT_NE(out.out.find("construct=barrier method=direct metric=avg_cost"), std::string::npos)
      << out.out;
  EXPECT_EQ(ompdash({"list", "--db", (dir_ / "none.sqlite").string()}).status, 2);
}

}  // namespace
}  // namespace ompscale::dashboard

// The A/B confirmation with real measurements (dashboard/confirm/ab_test.h): ompbench measures the
// barrier with the old and the new build alternately, round by round. A build whose barrier has a
// planted delay (tests/support/barrier_delay.c, preloaded) is confirmed slower; a build against
// itself is not. Timing-based: each verdict gets three tries (the other core may be busy).

#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <sstream>

#include "common/error.h"
#include "dashboard/confirm/ab_store.h"
#include "dashboard/confirm/ab_test.h"
#include "dashboard/ingest/ingest.h"
#include "dashboard/store/history.h"
#include "history_fixtures.h"

namespace ompscale::dashboard {
namespace {

namespace fs = std::filesystem;

class ConfirmTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::scratch_directory("ompdash-confirm");
    db_path_ = (dir_ / "history.sqlite").string();
    // One night of the barrier at 2 threads on libgomp: the kernel the A/B measures again.
    const std::string night = (dir_ / "night.csv").string();
    const auto out = test_support::run_program(
        {OMPSCALE_OMPBENCH_BIN, "--construct", "barrier", "--threads", "2", "--runtime", "gnu",
         "--reps", "10", "--canary-store", canaries(), "-o", night},
        dir_);
    ASSERT_EQ(out.status, 0) << out.err;
    Database db = open_history(db_path_);
    ingest_files(db, {night}, {});
    for (const SeriesInfo& s : list_series(db)) {
      if (s.metric == "avg_cost") targets_.push_back({s, 2, list_runs(db).back().id});
    }
    ASSERT_EQ(targets_.size(), 1u);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string canaries() const { return (dir_ / "canaries.json").string(); }

  static RuntimeBuild delayed(int delay_ns) {
    return {fmt::format("barrier + {} ns", delay_ns),
            {},
            {{"LD_PRELOAD", OMPSCALE_BARRIER_DELAY},
             {"OMPSCALE_BARRIER_DELAY_NS", std::to_string(delay_ns)}}};
  }

  AbRun ab(const RuntimeBuild& old_build, const RuntimeBuild& new_build, int attempt) {
    AbOptions options;
    options.rounds = 8;
    options.max_rounds = 16;
    options.reps = 10;
    options.ompbench = OMPSCALE_OMPBENCH_BIN;
    options.ompbench_args = {"--canary-store", canaries(), "--max-wait", "2"};
    std::ostringstream progress;
    return run_ab(old_build, new_build, targets_, options,
                  (dir_ / fmt::format("ab{}", attempt)).string(), progress);
  }

  fs::path dir_;
  std::string db_path_;
  std::vector<AbTarget> targets_;
};

TEST_F(ConfirmTest, APlantedBarrierDelayIsConfirmedSlower) {
#ifdef OMPSCALE_SANITIZED
  GTEST_SKIP() << "measured end to end: runs in the Release build (scripts/test.sh)";
#endif
  std::string verdicts;
  for (int attempt = 0; attempt < 3; ++attempt) {
    const AbRun run = ab(delayed(0), delayed(1000), attempt);
    ASSERT_EQ(run.results.size(), 1u);
    const AbEstimate& e = run.results[0].estimate;
    verdicts += format_ab_text(run);
    if (e.verdict != "slower") continue;
    EXPECT_GT(e.change, 0.2) << verdicts;
    EXPECT_GT(e.low, 0.0);
    EXPECT_GE(e.pairs, 8u);
    // Stored, and read back as the confirmation of its kernel.
    Database db = open_history(db_path_);
    write_ab(db, run, "test", "node", "2026-12-01T00:00:00Z");
    const auto stored = load_confirmations(db);
    ASSERT_EQ(stored.size(), 1u);
    EXPECT_EQ(stored[0].confirmation.verdict, "slower");
    EXPECT_EQ(stored[0].threads, 2);
    return;
  }
  FAIL() << "the planted delay was not confirmed in three A/Bs:\n" << verdicts;
}

TEST_F(ConfirmTest, ABuildAgainstItselfIsNotConfirmed) {
#ifdef OMPSCALE_SANITIZED
  GTEST_SKIP() << "measured end to end: runs in the Release build (scripts/test.sh)";
#endif
  std::string verdicts;
  for (int attempt = 0; attempt < 3; ++attempt) {
    const AbRun run = ab(delayed(0), delayed(0), attempt);
    verdicts += format_ab_text(run);
    if (run.results[0].estimate.verdict == "slower") continue;
    EXPECT_NE(run.results[0].estimate.verdict, "faster") << verdicts;
    return;
  }
  FAIL() << "an unchanged build was confirmed slower in three A/Bs:\n" << verdicts;
}

TEST_F(ConfirmTest, AFailingRoundNamesItsLog) {
  // Installed runtimes, nothing preloaded: a preload ahead of the sanitizer runtime would make
  // the old round fail as well in the sanitizer build.
  const RuntimeBuild installed{"installed", {}, {}};
  RuntimeBuild broken = installed;
  broken.name = "broken";
  broken.runtime_libs = {"gnu=/nonexistent/libgomp.so.1"};
  try {
    ab(installed, broken, 0);
    FAIL() << "expected a UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("ab-log-new.txt"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ompscale::dashboard

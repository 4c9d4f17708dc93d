#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "sync/offsets.h"
#include "tests/sync/team.h"

namespace ompscale::sync {
namespace {

struct Checked {
  std::vector<OffsetEstimate> estimates;
  CausalityResult result;
};

// Calibrates a team with the given skews, then checks causality with `estimates` as calibrated,
// or changed by `tamper` first.
template <typename Tamper>
Checked calibrate_and_check(int threads, const std::vector<double>& skews_ns, int rounds,
                            Tamper tamper) {
  const std::vector<LocalClock> clocks = testing::skewed_clocks(threads, skews_ns);
  OffsetCalibrator calibrator(threads);
  testing::run_team(threads, [&](int tid) {
    calibrator.participate(tid, clocks[static_cast<std::size_t>(tid)]);
  });
  Checked checked{calibrator.estimates(), {}};
  tamper(checked.estimates);
  CausalityCheck check(threads, checked.estimates, rounds);
  testing::run_team(
      threads, [&](int tid) { check.participate(tid, clocks[static_cast<std::size_t>(tid)]); });
  checked.result = check.result();
  return checked;
}

void keep(std::vector<OffsetEstimate>&) {}

TEST(CausalityCheck, CorrectOffsetsOfASkewedPairPass) {
  const Checked checked = calibrate_and_check(2, {0, 1e6}, 20, keep);
  EXPECT_EQ(checked.result.checks, 20 * 2);
  EXPECT_EQ(checked.result.violations, 0) << "worst " << checked.result.worst_ns;
  EXPECT_GE(checked.result.worst_ns, 0);
}

TEST(CausalityCheck, CorrectOffsetsOfASkewedTeamOfThreePass) {
  const Checked checked = calibrate_and_check(3, {0, 1e6, -2.5e5}, 10, keep);
  EXPECT_EQ(checked.result.checks, 10 * 3 * 2);
  EXPECT_EQ(checked.result.violations, 0) << "worst " << checked.result.worst_ns;
}

TEST(CausalityCheck, AnOffsetOff20UsIsCaught) {
  double error_ns = 0;
  const Checked checked = calibrate_and_check(2, {0, 1e6}, 20, [&](std::vector<OffsetEstimate>& e) {
    // 20 us on a quiet machine. b stamps one hand-off after a, so only an error beyond the
    // hand-off latency shows; on a busy machine where the pair shares a core that latency can
    // reach a pause phase (~0.3 ms) while the fastest round trip is ~10 us.
    error_ns = std::max(2e4, 100 * e[1].min_round_trip_ns);
    e[1].offset_ns += error_ns;
  });
  EXPECT_EQ(checked.result.checks, 40);
  // Thread 1 now looks early by the error: the checks where it stamps second fail.
  EXPECT_GE(checked.result.violations, 15);
  EXPECT_GT(checked.result.worst_ns, error_ns / 2);
  EXPECT_LT(checked.result.worst_ns, error_ns * 1.05);
}

TEST(CausalityCheck, UnskewedTeamWithoutCalibrationPasses) {
  // Same TSC on all cores and no injected skew: zero offsets are right, with zero uncertainty.
  if (clock_info().source != ClockSource::kTsc) GTEST_SKIP() << "no invariant TSC";
  CausalityCheck check(2, std::vector<OffsetEstimate>(2), 20);
  const LocalClock clock;
  testing::run_team(2, [&](int tid) { check.participate(tid, clock); });
  EXPECT_EQ(check.result().checks, 40);
  EXPECT_EQ(check.result().violations, 0) << "worst " << check.result().worst_ns;
}

TEST(CausalityCheck, SingleThreadHasNoPairs) {
  CausalityCheck check(1, std::vector<OffsetEstimate>(1), 20);
  check.participate(0, LocalClock{});
  EXPECT_EQ(check.result().checks, 0);
  EXPECT_EQ(check.result().violations, 0);
}

}  // namespace
}  // namespace ompscale::sync

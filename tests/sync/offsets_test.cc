#include "sync/offsets.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <vector>

#include "tests/sync/team.h"

namespace ompscale::sync {
namespace {

// Slack for the checks against an injected skew: far above the ~100 ns intervals of a quiet
// machine, far below the injected skews.
constexpr double kSlackNs = 500;

std::vector<OffsetEstimate> calibrate(int threads, const std::vector<double>& skews_ns,
                                      const CalibrationOptions& options = {}, bool bound = true) {
  const std::vector<LocalClock> clocks = testing::skewed_clocks(threads, skews_ns);
  OffsetCalibrator calibrator(threads, options);
  testing::run_team(
      threads, [&](int tid) { calibrator.participate(tid, clocks[static_cast<std::size_t>(tid)]); },
      bound);
  return calibrator.estimates();
}

// The injected skews are constant, so the drift is 0 up to noise: the batch estimates scatter by a
// fraction of the uncertainty over a few ms. `max_drift_ppm` is looser for pairs that may share
// a core, whose uncertainty is ~7 us instead of ~0.2 us.
void expect_recovers(const std::vector<OffsetEstimate>& estimates,
                     const std::vector<double>& skews_ns, const CalibrationOptions& options,
                     double max_drift_ppm = 50) {
  ASSERT_EQ(estimates.size(), skews_ns.size());
  const OffsetEstimate& master = estimates[0];
  EXPECT_EQ(master.offset_ns, 0);
  EXPECT_EQ(master.uncertainty_ns, 0);
  EXPECT_EQ(master.exchanges, 0);
  for (std::size_t tid = 1; tid < estimates.size(); ++tid) {
    SCOPED_TRACE(::testing::Message() << "thread " << tid);
    const OffsetEstimate& e = estimates[tid];
    const double injected = skews_ns[tid] - skews_ns[0];
    EXPECT_LE(std::abs(e.offset_ns - injected), e.uncertainty_ns + kSlackNs)
        << "offset " << e.offset_ns << " uncertainty " << e.uncertainty_ns;
    EXPECT_GE(injected, e.lower_ns - kSlackNs);
    EXPECT_LE(injected, e.upper_ns + kSlackNs);
    EXPECT_LE(e.lower_ns, e.offset_ns);
    EXPECT_LE(e.offset_ns, e.upper_ns);
    EXPECT_DOUBLE_EQ(e.uncertainty_ns, (e.upper_ns - e.lower_ns) / 2);
    EXPECT_GT(e.min_round_trip_ns, 0);
    EXPECT_GE(e.median_round_trip_ns, e.min_round_trip_ns);
    // The interval is never wider than the fastest round trip (plus two clock steps).
    EXPECT_LE(e.uncertainty_ns, e.min_round_trip_ns / 2 + clock_info().step_ns + 1);
    EXPECT_LT(std::abs(e.drift_ppm), max_drift_ppm);
    EXPECT_EQ(e.exchanges, options.batches * options.exchanges_per_batch);
  }
}

CalibrationOptions test_options() {
  CalibrationOptions options;
  // Spread the batches over a few ms so the drift fit sees beyond batch-to-batch noise.
  options.batch_gap_us = 1000;
  return options;
}

TEST(OffsetCalibrator, RecoversInjectedSkewWithTwoThreads) {
  const std::vector<double> skews_ns{0, 1e6};
  expect_recovers(calibrate(2, skews_ns, test_options()), skews_ns, test_options());
}

TEST(OffsetCalibrator, RecoversSkewRelativeToASkewedMaster) {
  const std::vector<double> skews_ns{-3e5, 2e5};
  expect_recovers(calibrate(2, skews_ns, test_options()), skews_ns, test_options());
}

TEST(OffsetCalibrator, RecoversInjectedSkewWithThreeThreadsOnTwoCores) {
  // Thread 2 shares the master's core: its exchanges are context switches, slow but still right.
  const std::vector<double> skews_ns{0, 1e6, -2.5e5};
  const auto start = std::chrono::steady_clock::now();
  expect_recovers(calibrate(3, skews_ns, test_options()), skews_ns, test_options(),
                  /*max_drift_ppm=*/1000);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 2.0);
}

TEST(OffsetCalibrator, RecoversInjectedSkewOfUnboundThreads) {
  // Wherever the scheduler puts them, possibly both on one core.
  const std::vector<double> skews_ns{0, -1e6, 2.5e5};
  expect_recovers(calibrate(3, skews_ns, test_options(), /*bound=*/false), skews_ns, test_options(),
                  /*max_drift_ppm=*/1000);
}

TEST(OffsetCalibrator, SingleThreadHasNothingToCalibrate) {
  const std::vector<OffsetEstimate> estimates = calibrate(1, {});
  ASSERT_EQ(estimates.size(), 1u);
  EXPECT_EQ(estimates[0].offset_ns, 0);
  EXPECT_EQ(estimates[0].exchanges, 0);
}

TEST(OffsetCalibrator, OneBatchGivesNoDrift) {
  CalibrationOptions options;
  options.batches = 1;
  options.exchanges_per_batch = 30;
  const std::vector<double> skews_ns{0, 5e4};
  const std::vector<OffsetEstimate> estimates = calibrate(2, skews_ns, options);
  EXPECT_EQ(estimates[1].drift_ppm, 0);
  EXPECT_EQ(estimates[1].exchanges, 30);
  EXPECT_NEAR(estimates[1].offset_ns, 5e4, estimates[1].uncertainty_ns + kSlackNs);
}

TEST(OffsetTable, CorrectsStampsBothWays) {
  std::vector<OffsetEstimate> estimates(3);
  estimates[1].offset_ns = 1000;
  estimates[1].min_round_trip_ns = 300;
  estimates[2].offset_ns = -500;
  estimates[2].min_round_trip_ns = 200;
  const OffsetTable table(estimates);
  EXPECT_EQ(table.threads(), 3);
  EXPECT_DOUBLE_EQ(table.min_round_trip_ns(), 200);
  const std::uint64_t stamp = 1000000000;
  EXPECT_DOUBLE_EQ(table.to_master(0, stamp), 1e9);
  EXPECT_NEAR(ticks_to_ns(table.to_master(1, stamp) - 1e9), -1000, 1e-6);
  EXPECT_NEAR(ticks_to_ns(table.to_master(2, stamp) - 1e9), 500, 1e-6);
  EXPECT_NEAR(table.from_master(1, table.to_master(1, stamp)), 1e9, 1e-3);
  EXPECT_EQ(OffsetTable().min_round_trip_ns(), 0);
}

}  // namespace
}  // namespace ompscale::sync

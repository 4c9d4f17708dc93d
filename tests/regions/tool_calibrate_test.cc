// A region's sampled statistics calibrated to its exact totals (regions/ompt/calibrate.h): which
// sums are scaled by which factor, and which stay counts of what was measured.
#include <gtest/gtest.h>

#include <cstdint>

#include "regions/ompt/calibrate.h"

namespace ompscale::regions::ompt {
namespace {

// A region of 100 executions, 10 measured with weight 4 (an estimate of 40 executions and of
// 4,000 ticks of wall time), while every execution's wall time added up to 6,000 ticks.
RegionStats sampled_region() {
  RegionStats s;
  s.measured = 10;
  s.estimated_executions = 40;
  s.wall_ticks = 4'000;
  ThreadStats& t = s.threads.emplace_back();
  t.executions = 10;
  t.span_ticks = 3'600;
  t.imbalance_ticks = 400;
  t.barriers = 80;
  t.lock_acquisitions = 400;
  t.lock_timed = 50;
  t.lock_wait_ticks = 500;
  t.lock_wait_estimate_ticks = 2'000.0;
  t.tasks_created = 40;
  s.locks.push_back({.acquisitions = 400,
                     .timed = 50,
                     .wait_ticks = 500,
                     .wait_estimate_ticks = 2'000.0,
                     .hold_ticks = 300});
  LoopStats::PerThread& loop = s.loops.emplace_back().threads.emplace_back();
  loop.executions = 40;
  loop.iterations = 4'000;
  loop.ticks = 2'000;
  SiteStats::PerThread& site = s.sites.emplace_back().threads.emplace_back();
  site.barriers = 40;
  site.imbalance_ticks = 200;
  s.split.add(4, 400, 40);
  return s;
}

TEST(ToolCalibrate, TimesAndSizeGrownCountsFollowTheExactTimeOnceCountsTheExecutions) {
  const RegionStats c = calibrated(sampled_region(), 6'000, 100);
  EXPECT_DOUBLE_EQ(c.calibration, 1.5);
  EXPECT_EQ(c.wall_ticks, 6'000u);
  EXPECT_EQ(c.estimated_executions, 100u);
  const ThreadStats& t = c.threads[0];
  EXPECT_EQ(t.span_ticks, 5'400u);
  EXPECT_EQ(t.imbalance_ticks, 600u);
  EXPECT_DOUBLE_EQ(t.lock_wait_estimate_ticks, 3'000.0);
  EXPECT_EQ(t.lock_acquisitions, 600u);  // grows with an execution's size
  EXPECT_EQ(t.tasks_created, 60u);
  EXPECT_EQ(t.barriers, 200u);  // once per execution: 100 / 40
  EXPECT_EQ(c.locks[0].acquisitions, 600u);
  EXPECT_DOUBLE_EQ(c.locks[0].wait_estimate_ticks, 3'000.0);
  EXPECT_EQ(c.loops[0].threads[0].ticks, 3'000u);
  EXPECT_EQ(c.loops[0].threads[0].iterations, 6'000u);
  EXPECT_EQ(c.loops[0].threads[0].executions, 100u);
  EXPECT_EQ(c.sites[0].threads[0].barriers, 100u);
  EXPECT_EQ(c.sites[0].threads[0].imbalance_ticks, 300u);
  // What was measured stays a count of it.
  EXPECT_EQ(c.measured, 10u);
  EXPECT_EQ(t.executions, 10u);
  EXPECT_EQ(t.lock_timed, 50u);
  EXPECT_EQ(t.lock_wait_ticks, 500u);
  EXPECT_EQ(c.locks[0].timed, 50u);
  EXPECT_EQ(c.locks[0].wait_ticks, 500u);
  EXPECT_EQ(c.locks[0].hold_ticks, 300u);
  // The split's sums are kept; its variance is taken with the factor.
  EXPECT_DOUBLE_EQ(c.split.idle, 160.0);
}

TEST(ToolCalibrate, ARegionWithNothingAggregatedKeepsItsExactTime) {
  const RegionStats c = calibrated(RegionStats{}, 6'000, 100);
  EXPECT_EQ(c.wall_ticks, 6'000u);
  EXPECT_EQ(c.measured, 0u);
  EXPECT_DOUBLE_EQ(c.calibration, 1.0);
}

TEST(ToolCalibrate, ARegionMeasuredInFullIsUnchanged) {
  RegionStats full = sampled_region();
  full.estimated_executions = 100;
  full.wall_ticks = 6'000;
  const RegionStats c = calibrated(full, 6'000, 100);
  EXPECT_DOUBLE_EQ(c.calibration, 1.0);
  EXPECT_EQ(c.threads[0].span_ticks, full.threads[0].span_ticks);
  EXPECT_EQ(c.threads[0].barriers, full.threads[0].barriers);
  EXPECT_EQ(c.loops[0].threads[0].iterations, full.loops[0].threads[0].iterations);
}

}  // namespace
}  // namespace ompscale::regions::ompt

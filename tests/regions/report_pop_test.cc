// POP efficiencies by hand: load balance, communication (serialisation) efficiency and their
// product over the parallel regions, and over the whole run with serial regions.

#include <gtest/gtest.h>

#include "regions/report/pop.h"
#include "tests/regions/report_fixtures.h"

namespace ompscale::regions::report {
namespace {

RegionRecord region(RegionKind kind, double wall_s, std::vector<double> work_s, int nesting = 0) {
  RegionRecord r;
  r.kind = kind;
  r.nesting_level = nesting;
  r.executions = 10;
  r.executions_measured = 5;  // every sum below counts twice
  r.wall_ns = wall_s / 2 * 1e9;
  for (std::size_t t = 0; t < work_s.size(); ++t) {
    ThreadRecord rec;
    rec.thread = static_cast<int>(t);
    rec.work_ns = work_s[t] / 2 * 1e9;
    r.threads.push_back(rec);
  }
  return r;
}

TEST(ReportPop, ByHand) {
  RunFile run;
  run.run_id = "t4-r0";
  run.threads = 4;
  run.profile = Profile{};
  run.profile->process_ns = 12e9;
  run.profile->regions = {
      region(RegionKind::kSerial, 1.0, {}),
      // Threads 2 and 3 take no part in the first region: they count as idle.
      region(RegionKind::kParallel, 4.0, {3.0, 1.0}),
      region(RegionKind::kParallel, 6.0, {2.0, 4.0, 5.0, 5.0}),
      // Nested: its work is inside the enclosing region's already.
      region(RegionKind::kParallel, 1.0, {1.0, 1.0}, 1),
      region(RegionKind::kSerial, 0.5, {}),
  };
  const RunPop pop = pop_efficiencies(run);
  // Useful work per thread: 5, 5, 5, 5 over parallel wall 10 s.
  EXPECT_DOUBLE_EQ(pop.parallel_regions.useful_mean, 5.0);
  EXPECT_DOUBLE_EQ(pop.parallel_regions.useful_max, 5.0);
  EXPECT_DOUBLE_EQ(pop.parallel_regions.wall, 10.0);
  EXPECT_DOUBLE_EQ(pop.parallel_regions.load_balance, 1.0);
  EXPECT_DOUBLE_EQ(pop.parallel_regions.communication, 0.5);
  EXPECT_DOUBLE_EQ(pop.parallel_regions.parallel, 0.5);
  // Whole run: 1.5 s serial on thread 0 -> 6.5, 5, 5, 5 over the 12 s process time.
  EXPECT_DOUBLE_EQ(pop.whole_run.useful_mean, 21.5 / 4);
  EXPECT_DOUBLE_EQ(pop.whole_run.useful_max, 6.5);
  EXPECT_DOUBLE_EQ(pop.whole_run.load_balance, 21.5 / 4 / 6.5);
  EXPECT_DOUBLE_EQ(pop.whole_run.communication, 6.5 / 12.0);
  EXPECT_DOUBLE_EQ(pop.whole_run.parallel, 21.5 / 4 / 12.0);
  EXPECT_EQ(pop.run_id, "t4-r0");
  EXPECT_EQ(pop.threads, 4);
}

TEST(ReportPop, ImbalancedRegionLowersLoadBalance) {
  RunFile run;
  run.threads = 2;
  run.profile = Profile{};
  run.profile->regions = {region(RegionKind::kParallel, 4.0, {3.0, 1.0})};
  const RunPop pop = pop_efficiencies(run);
  EXPECT_DOUBLE_EQ(pop.parallel_regions.load_balance, 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(pop.parallel_regions.communication, 3.0 / 4.0);
  EXPECT_DOUBLE_EQ(pop.parallel_regions.parallel, 0.5);
  // Without a process time the whole run is the regions' time.
  EXPECT_DOUBLE_EQ(pop.whole_run.wall, 4.0);
}

TEST(ReportPop, FixtureMandelbrotLosesLoadBalanceWithThreads) {
  const Report& report = testing::fixture_report("mandel-static");
  ASSERT_EQ(report.pop.size(), report.usable_runs);
  for (const RunPop& p : report.pop) {
    if (p.threads == 1) {
      EXPECT_NEAR(p.parallel_regions.load_balance, 1.0, 1e-12);
    }
    if (p.threads == 8) {
      EXPECT_LT(p.parallel_regions.load_balance, 0.6) << p.run_id;
    }
    EXPECT_NEAR(p.parallel_regions.parallel,
                p.parallel_regions.load_balance * p.parallel_regions.communication, 1e-12);
  }
}

}  // namespace
}  // namespace ompscale::regions::report

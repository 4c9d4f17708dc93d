// Regions across runs: identity despite ASLR and changing ids, serial regions through the region
// they precede, scaling by sampling, lock costs, and how repetitions are combined.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <vector>

#include "common/output_file.h"
#include "regions/report/regions.h"
#include "tests/regions/report_fixtures.h"

namespace ompscale::regions::report {
namespace {

using testing::fixture_dir;

RegionRecord parallel_record() {
  RegionRecord r;
  r.id = 7;
  r.kind = RegionKind::kParallel;
  r.location.module = "/apps/bin/app";
  r.location.offset = "0x10";
  r.executions = 100;
  r.executions_measured = 25;  // scale 4
  r.wall_ns = 1000;
  r.threads = {{0, 600, 10, 100, 20, 0, 1, 0, 0, 0, 0}, {1, 400, 30, 300, 20, 40, 1, 0, 0, 0, 0}};
  return r;
}

TEST(ReportRegions, CostsAreScaledToAllExecutionsAndAveragedOverThreads) {
  const RegionCosts c = run_costs(parallel_record());
  EXPECT_DOUBLE_EQ(c.time, 4000e-9);
  EXPECT_DOUBLE_EQ(c.sampling_ratio(), 0.25);
  EXPECT_DOUBLE_EQ(c.team, 2);
  EXPECT_DOUBLE_EQ(c.work, 4 * 500e-9);
  EXPECT_DOUBLE_EQ(c.work_max, 4 * 600e-9);
  EXPECT_DOUBLE_EQ(c.fork, 4 * 20e-9);
  EXPECT_DOUBLE_EQ(c.imbalance, 4 * 200e-9);  // mean of 100 and 300
  EXPECT_DOUBLE_EQ(c.walkthrough, 4 * 20e-9);
  EXPECT_DOUBLE_EQ(c.startup, 4 * 20e-9);
  EXPECT_DOUBLE_EQ(c.barriers, 4);
}

TEST(ReportRegions, TaskCountsAreScaledAndTaskTimeAveragedOverThreads) {
  RegionRecord r = parallel_record();  // scale 4, two threads
  r.tasks_created = 30;
  r.tasks_executed = 29;
  r.threads[0].task_ns = 100;
  r.threads[1].task_ns = 300;
  const RegionCosts c = run_costs(r);
  EXPECT_DOUBLE_EQ(c.tasks_created, 120);
  EXPECT_DOUBLE_EQ(c.tasks_executed, 116);
  EXPECT_DOUBLE_EQ(c.task, 4 * 200e-9);
  // Without thread records (a serial gap) there is no per-thread mean.
  r.threads.clear();
  EXPECT_DOUBLE_EQ(run_costs(r).task, 0.0);
  EXPECT_DOUBLE_EQ(run_costs(r).tasks_created, 120);
}

TEST(ReportRegions, LockAlgorithmIsFastestTimesAcquisitionsAndTheRestIsContention) {
  RegionRecord r = parallel_record();
  // 1000 acquisitions in the measured executions, 100 timed taking 5000 ns, the fastest 20 ns.
  r.locks = {{"critical", {}, 1000, 100, 5000, 20}};
  std::vector<LockSite> sites;
  const RegionCosts c = run_costs(r, &sites);
  ASSERT_EQ(sites.size(), 1u);
  // Scaled to all acquisitions (x10) and all executions (x4).
  EXPECT_DOUBLE_EQ(sites[0].acquisitions, 4000);
  EXPECT_DOUBLE_EQ(sites[0].algorithm, 4000 * 20e-9);
  EXPECT_DOUBLE_EQ(sites[0].contention, (5000 - 100 * 20) * 10 * 4 * 1e-9);
  EXPECT_DOUBLE_EQ(sites[0].mean_ns, 50);
  EXPECT_DOUBLE_EQ(c.lock_algorithm, sites[0].algorithm / 2);  // per-thread mean
  EXPECT_DOUBLE_EQ(c.lock_contention, sites[0].contention / 2);
  EXPECT_FALSE(c.lock_untimed);
  r.locks[0].timed = 0;
  EXPECT_TRUE(run_costs(r).lock_untimed);
}

RegionRecord serial_record(long long id, const std::string& name) {
  RegionRecord r;
  r.id = id;
  r.kind = RegionKind::kSerial;
  r.name = name;
  r.executions = r.executions_measured = 1;
  r.wall_ns = 100;
  return r;
}

TEST(ReportRegions, IdentityFollowsLocationNameAndPrecededRegion) {
  Profile one;
  RegionRecord parallel = parallel_record();
  parallel.id = 9;
  one.regions = {serial_record(3, "serial before 9"), parallel,
                 serial_record(5, "serial before 42"), serial_record(6, "serial before end")};
  RegionRecord manual;
  manual.id = 4;
  manual.kind = RegionKind::kManual;
  manual.name = "phase A";
  one.regions.push_back(manual);
  EXPECT_EQ(region_key(one.regions[1], one), "parallel:app+0x10");
  EXPECT_EQ(region_key(one.regions[0], one), "serial:parallel:app+0x10");
  EXPECT_EQ(region_key(one.regions[2], one), "serial:serial before 42");
  EXPECT_EQ(region_key(one.regions[3], one), "serial:serial before end");
  EXPECT_EQ(region_key(one.regions[4], one), "manual:phase A");

  // Another process: other ids, the module elsewhere on disk; the same regions.
  Profile two;
  parallel.id = 2;
  parallel.location.module = "/tmp/copy/app";
  two.regions = {serial_record(1, "serial before 2"), parallel};
  EXPECT_EQ(region_key(two.regions[1], two), "parallel:app+0x10");
  EXPECT_EQ(region_key(two.regions[0], two), "serial:parallel:app+0x10");
}

TEST(ReportRegions, FixtureRegionsAreOneEachAcrossRuns) {
  // The fixture's runs load the code at different addresses and number regions differently.
  const nlohmann::json a =
      nlohmann::json::parse(read_input(fixture_dir("mandel-static") + "/t4-in800-r0.json"));
  const nlohmann::json b =
      nlohmann::json::parse(read_input(fixture_dir("mandel-static") + "/t4-in800-r1.json"));
  ASSERT_NE(a["profile"]["regions"][1]["codeptr"], b["profile"]["regions"][1]["codeptr"]);
  ASSERT_NE(a["profile"]["regions"][1]["id"], b["profile"]["regions"][1]["id"]);

  const Measurements m = aggregate(read_run_directory(fixture_dir("mandel-static")).usable);
  ASSERT_EQ(m.regions.size(), 4u);
  EXPECT_EQ(m.thread_counts, (std::vector<int>{1, 2, 4, 8}));
  ASSERT_EQ(m.inputs.size(), 2u);
  EXPECT_EQ(m.inputs[0].name, "400");
  EXPECT_EQ(m.inputs[1].size, 800.0);
  std::vector<std::string> labels;
  for (const Region& r : m.regions) {
    labels.push_back(r.label);
    EXPECT_EQ(r.points.size(), 8u) << r.label;
    for (const RegionPoint& p : r.points) EXPECT_EQ(p.repetitions, 3) << r.label;
  }
  EXPECT_EQ(labels,
            (std::vector<std::string>{"serial before mandel.c:42 (main)", "mandel.c:42 (main)",
                                      "serial before mandel+0x1a2f", "mandel+0x1a2f"}));
  EXPECT_EQ(m.unmeasured_records, 0u);
  EXPECT_EQ(m.program.size(), 8u);
}

// Every quantity of a point comes from the median repetition (by time), so
// costs belong to the time they are compared with.
TEST(ReportRegions, RepetitionsCombineAsTheMedianRepetition) {
  const RunSet runs = read_run_directory(fixture_dir("mandel-static"));
  const Measurements m = aggregate(runs.usable);
  const Region& mandel = m.regions[1];
  const RegionPoint* p = mandel.find("800", 8);
  ASSERT_NE(p, nullptr);
  std::vector<RegionCosts> repetitions;
  for (const RunFile& run : runs.usable) {
    if (run.threads != 8 || run.input != "800") continue;
    for (const RegionRecord& r : run.profile->regions) {
      if (region_key(r, *run.profile) == mandel.key) repetitions.push_back(run_costs(r));
    }
  }
  ASSERT_EQ(repetitions.size(), 3u);
  std::sort(repetitions.begin(), repetitions.end(),
            [](const RegionCosts& a, const RegionCosts& b) { return a.time < b.time; });
  EXPECT_DOUBLE_EQ(p->costs.time, repetitions[1].time);
  EXPECT_DOUBLE_EQ(p->time_min, repetitions[0].time);
  EXPECT_DOUBLE_EQ(p->time_max, repetitions[2].time);
  EXPECT_DOUBLE_EQ(p->spread(), (repetitions[2].time - repetitions[0].time) / repetitions[1].time);
  EXPECT_DOUBLE_EQ(p->costs.imbalance, repetitions[1].imbalance);
  EXPECT_DOUBLE_EQ(p->costs.walkthrough, repetitions[1].walkthrough);
  EXPECT_EQ(p->schedules, (std::vector<std::string>{"static"}));
  EXPECT_DOUBLE_EQ(p->costs.sampling_ratio(), 24.0 / 40.0);
}

TEST(ReportRegions, TaskSumsAreScaledPerRunThenAveragedOverRepetitions) {
  // tests/regions/report_fixtures.h: 10 executions, 4 or 5 measured at 1 thread, 4 or 8 at 2.
  const Measurements m = aggregate(read_run_directory(testing::fixture_dir("tasks")).usable);
  ASSERT_EQ(m.regions.size(), 3u);
  const Region& tasks = m.regions[1];
  EXPECT_EQ(tasks.label, "fib.c:20 (main)");
  const RegionPoint* one = tasks.find("30", 1);
  const RegionPoint* two = tasks.find("30", 2);
  ASSERT_NE(one, nullptr);
  ASSERT_NE(two, nullptr);
  EXPECT_EQ(one->repetitions, 2);
  // 400 * 10/4 and 500 * 10/5.
  EXPECT_DOUBLE_EQ(one->costs.tasks_created, 1000);
  EXPECT_DOUBLE_EQ(one->costs.tasks_executed, 1000);
  // (2.0 ms * 10/4 + 2.8 ms * 10/5) / 2.
  EXPECT_NEAR(one->costs.task, 5.3e-3, 1e-15);
  // 400 * 10/4 and 800 * 10/8 created; 400 * 10/4 and 792 * 10/8 executed.
  EXPECT_DOUBLE_EQ(two->costs.tasks_created, 1000);
  EXPECT_DOUBLE_EQ(two->costs.tasks_executed, 995);
  // ((1.2 + 0.8) / 2 ms * 10/4 + (2.0 + 2.4) / 2 ms * 10/8) / 2.
  EXPECT_NEAR(two->costs.task, 2.625e-3, 1e-15);
  EXPECT_DOUBLE_EQ(two->costs.time, 7.5e-3);
  for (const RegionPoint& p : m.regions[2].points) {
    EXPECT_EQ(p.costs.tasks_created, 0.0);
    EXPECT_EQ(p.costs.tasks_executed, 0.0);
    EXPECT_EQ(p.costs.task, 0.0);
  }
}

TEST(ReportRegions, RecordsWithoutMeasuredExecutionsAreCountedAndLeftOut) {
  RunFile run;
  run.threads = 2;
  run.input = "1";
  run.profile = Profile{};
  RegionRecord never = parallel_record();
  never.executions_measured = 0;
  run.profile->regions = {parallel_record(), never};
  run.profile->regions[1].location.offset = "0x20";
  const Measurements m = aggregate({run});
  EXPECT_EQ(m.regions.size(), 1u);
  EXPECT_EQ(m.unmeasured_records, 1u);
}

TEST(ReportRegions, LabelsStayUnique) {
  RunFile run;
  run.threads = 1;
  run.profile = Profile{};
  RegionRecord a = parallel_record();
  RegionRecord b = parallel_record();
  b.id = 8;
  b.location.module = "/apps/lib/libother.so";  // another module, same source line
  a.location.file = b.location.file = "/src/util.c";
  a.location.line = b.location.line = 10;
  run.profile->regions = {a, b};
  const Measurements m = aggregate({run});
  ASSERT_EQ(m.regions.size(), 2u);
  EXPECT_EQ(m.regions[0].label, "util.c:10");
  EXPECT_EQ(m.regions[1].label, "util.c:10 (copy 2)");
  EXPECT_NE(m.regions[0].key, m.regions[1].key);
}

}  // namespace
}  // namespace ompscale::regions::report

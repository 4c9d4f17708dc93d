// The analysis: efficiency and lost time by hand, the loss split adding up, the imbalance gain
// being the mean imbalance, hints ranked by gain, lock algorithm against contention (ScalOMP
// 5.3), the Mandelbrot's predicted gain of balancing against the gain measured with
// schedule(dynamic) (ScalOMP 5.2), and regions sorted by potential gain.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "regions/report/analysis.h"
#include "regions/report/schedule_price.h"
#include "tests/regions/report_fixtures.h"

namespace ompscale::regions::report {
namespace {

using testing::fixture_report;
using testing::point_at;
using testing::region_by_label;

/// A parallel region measured at `threads` with time T and per-thread mean costs.
RegionPoint point(int threads, double time, double imbalance, double walkthrough = 0.0,
                  double lock_algorithm = 0.0, double lock_contention = 0.0) {
  RegionPoint p;
  p.threads = threads;
  p.input = "in";
  p.repetitions = 1;
  p.costs.time = p.time_min = p.time_max = time;
  p.times = {time};
  p.costs.executions = p.costs.executions_measured = 1;
  p.costs.team = threads;
  p.costs.imbalance = imbalance;
  p.costs.walkthrough = walkthrough;
  p.costs.lock_algorithm = lock_algorithm;
  p.costs.lock_contention = lock_contention;
  p.schedules = {"static"};
  return p;
}

Region region_of(std::vector<RegionPoint> points, RegionKind kind = RegionKind::kParallel) {
  Region r;
  r.key = "parallel:app+0x10";
  r.label = "app.c:10";
  r.kind = kind;
  r.points = std::move(points);
  return r;
}

TEST(ReportAnalysis, EfficiencyLostTimeAndSplitByHand) {
  // p0 = 2 already has imbalance 1; at 8 threads imbalance 2, walkthrough 0.5.
  const Region r = region_of({point(2, 10.0, 1.0), point(8, 6.0, 2.0, 0.5)});
  const SeriesAnalysis s = analyse_region(r, "in");
  ASSERT_EQ(s.points.size(), 2u);
  EXPECT_EQ(s.base_threads, 2);
  EXPECT_EQ(s.reference_threads, 8);
  const PointAnalysis& p = s.points[1];
  EXPECT_DOUBLE_EQ(p.speedup, 10.0 / 6.0);
  EXPECT_DOUBLE_EQ(p.efficiency, 10.0 / 6.0 * 2.0 / 8.0);
  EXPECT_DOUBLE_EQ(p.lost, 6.0 - 10.0 * 2.0 / 8.0);  // 3.5
  // Imbalance already cost 1 at 2 threads: perfect scaling of it leaves 0.25 at 8.
  EXPECT_DOUBLE_EQ(p.loss.imbalance, 2.0 - 0.25);
  EXPECT_DOUBLE_EQ(p.loss.walkthrough, 0.5);
  EXPECT_DOUBLE_EQ(p.other, 3.5 - 1.75 - 0.5);
  // Potential gain: above perfect scaling of the overhead-free 9 s at 2 threads.
  EXPECT_DOUBLE_EQ(p.potential_gain, 6.0 - 9.0 * 2.0 / 8.0);
  EXPECT_DOUBLE_EQ(p.potential_gain, p.cost.total() + p.other);
  // Hints: removing a cause saves all it costs at 8 threads.
  ASSERT_GE(s.hints.size(), 2u);
  EXPECT_EQ(s.hints[0].kind, HintKind::kImbalance);
  EXPECT_DOUBLE_EQ(s.hints[0].gain, 2.0);
  EXPECT_DOUBLE_EQ(s.hints[0].time_after, 4.0);
  EXPECT_NE(s.hints[0].advice.find("schedule(dynamic)"), std::string::npos);
  EXPECT_NE(s.hints[0].advice.find("schedule now: static"), std::string::npos);
}

TEST(ReportAnalysis, HintsBelowTheThresholdAreLeftOut) {
  const Region r = region_of({point(1, 8.0, 0.0), point(4, 2.5, 0.02, 0.2)});
  AnalysisOptions options;
  options.min_hint_fraction = 0.05;  // 0.125 s at 4 threads
  const SeriesAnalysis s = analyse_region(r, "in", options);
  ASSERT_EQ(s.hints.size(), 2u);  // walkthrough 0.2 and unexplained 0.28; imbalance 0.02 is not
  for (const Hint& h : s.hints) EXPECT_NE(h.kind, HintKind::kImbalance);
  EXPECT_TRUE(analyse_region(r, "other input").points.empty());
}

TEST(ReportAnalysis, DynamicScheduleAlreadyGetsOtherAdvice) {
  Region r = region_of({point(1, 8.0, 0.0), point(4, 3.0, 0.8)});
  r.points[1].schedules = {"dynamic"};
  const SeriesAnalysis s = analyse_region(r, "in");
  ASSERT_FALSE(s.hints.empty());
  EXPECT_EQ(s.hints[0].kind, HintKind::kImbalance);
  EXPECT_NE(s.hints[0].advice.find("smaller chunks"), std::string::npos);
}

TEST(ReportAnalysis, ATaskCodeKeepsTaskAdviceWhenWaitingSwellsItsTime) {
  // Its tasks are all of its time at 1 thread; at 2 threads, on a machine shared with other
  // jobs, the region took 3 s (waiting for a CPU) of which its tasks are 0.2 s per thread.
  // Before, that point alone decided: "schedule(dynamic)" for a code with no loop.
  Region r = region_of({point(1, 1.0, 0.0), point(2, 3.0, 0.8)});
  for (RegionPoint& p : r.points) {
    p.costs.tasks_created = p.costs.tasks_executed = 1000;
    p.costs.top_creator_tasks = 1000;
  }
  r.points[0].costs.task = 1.0;
  r.points[1].costs.task = 0.2;
  const SeriesAnalysis s = analyse_region(r, "in");
  ASSERT_FALSE(s.hints.empty());
  for (const Hint& h : s.hints) {
    EXPECT_EQ(h.advice.find("schedule("), std::string::npos) << h.advice;
    if (h.kind == HintKind::kImbalance) {
      EXPECT_NE(h.problem.find("task"), std::string::npos) << h.problem;
    }
  }
}

MachineCosts measured_libomp(double task_s, double init_s = 0.0) {
  MachineCosts c;
  c.runtime = "libomp";
  c.threads = 2;
  c.measured = true;
  c.source = "measured (test)";
  c.task_s = task_s;
  c.init_s = init_s;
  return c;
}

TEST(ReportAnalysis, TooFineTasksAreToldTheirCostAndTheSizeThatAmortisesIt) {
  // A million tasks of 1 us (0.5 s per thread at 2 threads), and the runtime's cost measured at
  // 0.5 us per task: tasks of 4.5 us make it a tenth of a task, 4.5x larger, 3 levels of a
  // binary recursion; coarsening saves 1e6 x 0.5 us / 2 x (1 - 1 / 4.5) per thread.
  Region r = region_of({point(1, 1.0, 0.0), point(2, 0.8, 0.0)});
  for (RegionPoint& p : r.points) p.costs.tasks_created = p.costs.tasks_executed = 1e6;
  r.points[0].costs.task = 1.0;
  r.points[1].costs.task = 0.5;
  AnalysisOptions options;
  options.machine_costs = {measured_libomp(0.5e-6)};
  const SeriesAnalysis s = analyse_region(r, "in", options);
  const auto fine = std::find_if(s.hints.begin(), s.hints.end(), [](const Hint& h) {
    return h.kind == HintKind::kTaskGranularity;
  });
  ASSERT_NE(fine, s.hints.end());
  EXPECT_NEAR(fine->gain, 1e6 * 0.5e-6 / 2 * (1 - 1 / 4.5), 1e-9);
  EXPECT_NE(fine->problem.find("too fine-grained tasks"), std::string::npos) << fine->problem;
  EXPECT_NE(fine->advice.find("4.5x larger"), std::string::npos) << fine->advice;
  EXPECT_NE(fine->advice.find("3 level(s) higher"), std::string::npos) << fine->advice;
  EXPECT_EQ(fine->costs, "measured (test)");
  // It comes first, and what it explains is out of "unexplained" (0.3 s lost at 2 threads).
  EXPECT_EQ(s.hints[0].kind, HintKind::kTaskGranularity);
  for (const Hint& h : s.hints) {
    if (h.kind == HintKind::kUnexplained) {
      EXPECT_NEAR(h.gain, 0.3 - fine->gain, 1e-9);
    }
  }

  // Tasks 20 times the runtime's cost are coarse enough.
  options.machine_costs = {measured_libomp(0.05e-6)};
  for (const Hint& h : analyse_region(r, "in", options).hints) {
    EXPECT_NE(h.kind, HintKind::kTaskGranularity);
  }
}

TEST(ReportAnalysis, TheRuntimesStartIsTakenOutOfTheGapBeforeTheFirstRegion) {
  // 5 ms before the first region at 1 and 2 threads, of which the runtime's initialisation,
  // measured, is 3 ms: the program's serial code is 2 ms.
  Region r = region_of({point(1, 0.005, 0.0), point(2, 0.005, 0.0)}, RegionKind::kSerial);
  r.before_first_region = true;
  AnalysisOptions options;
  options.machine_costs = {measured_libomp(1e-6, 0.003)};
  const SeriesAnalysis s = analyse_region(r, "in", options);
  EXPECT_DOUBLE_EQ(s.runtime_start, 0.003);
  for (const PointAnalysis& p : s.points) EXPECT_NEAR(p.time, 0.002, 1e-12);
  ASSERT_FALSE(s.hints.empty());
  EXPECT_NEAR(s.hints[0].gain, 0.001, 1e-12);
  EXPECT_NE(s.hints[0].problem.find("runtime's own start"), std::string::npos)
      << s.hints[0].problem;
  // Not measured: nothing is taken out.
  EXPECT_EQ(analyse_region(r, "in").runtime_start, 0.0);
}

TEST(ReportAnalysis, RuntimeChosenSchedulesMayBeStaticSoDynamicIsAdvised) {
  // schedule(runtime) reports "runtime" (GCC builds) or "dispatch" (clang builds, also for
  // dynamic and guided): under OMP_SCHEDULE=static these loops are static.
  for (const std::vector<std::string>& schedules :
       std::vector<std::vector<std::string>>{{"dispatch"},
                                             {"runtime"},
                                             {"auto"},
                                             {"dynamic", "runtime"},
                                             {"runtime (ran as static)"}}) {
    Region r = region_of({point(1, 8.0, 0.0), point(4, 3.0, 0.8)});
    r.points[1].schedules = schedules;
    const SeriesAnalysis s = analyse_region(r, "in");
    ASSERT_FALSE(s.hints.empty());
    EXPECT_EQ(s.hints[0].kind, HintKind::kImbalance);
    EXPECT_NE(s.hints[0].advice.find("schedule(dynamic)"), std::string::npos) << schedules[0];
  }
  Region guided = region_of({point(1, 8.0, 0.0), point(4, 3.0, 0.8)});
  guided.points[1].schedules = {"guided", "dynamic"};
  EXPECT_NE(analyse_region(guided, "in").hints[0].advice.find("smaller chunks"), std::string::npos);
  // A runtime loop that ran dynamic (the program's omp_set_schedule, or libgomp's default)
  // balances already.
  guided.points[1].schedules = {"runtime (ran as dynamic,1)"};
  EXPECT_NE(analyse_region(guided, "in").hints[0].advice.find("smaller chunks"), std::string::npos);
}

TEST(ReportAnalysis, SerialRegionsLoseWhatTheyDoNotScale) {
  const Region r =
      region_of({point(1, 2.0, 0.0), point(2, 2.0, 0.0), point(8, 2.0, 0.0)}, RegionKind::kSerial);
  const SeriesAnalysis s = analyse_region(r, "in");
  EXPECT_DOUBLE_EQ(s.points[2].efficiency, 0.125);
  EXPECT_DOUBLE_EQ(s.points[2].lost, 2.0 - 2.0 / 8.0);
  ASSERT_EQ(s.hints.size(), 1u);
  EXPECT_EQ(s.hints[0].kind, HintKind::kSerial);
  EXPECT_DOUBLE_EQ(s.hints[0].gain, 1.75);
}

TEST(ReportAnalysis, LossSplitAddsUpToLostTimeInEveryFixture) {
  for (const char* name : {"mandel-static", "mandel-dynamic", "locks", "stencil-inputs"}) {
    const Report& report = fixture_report(name);
    for (const RegionReport& r : report.regions) {
      for (const SeriesAnalysis& s : r.series) {
        for (const PointAnalysis& p : s.points) {
          EXPECT_NEAR(p.loss.total() + p.other, p.lost, 1e-12 * std::max(1.0, p.time))
              << name << " " << r.region.label << " " << p.threads;
          EXPECT_NEAR(p.potential_gain, std::max(0.0, p.cost.total() + p.other), 1e-12)
              << name << " " << r.region.label << " " << p.threads;
        }
      }
    }
  }
}

TEST(ReportAnalysis, ImbalanceGainIsTheMeanImbalanceScaledBySampling) {
  const Report& report = fixture_report("mandel-static");
  const RegionReport& mandel = region_by_label(report, "mandel.c:42 (main)");
  // By hand from the run files: mean over the 8 threads of imbalance_ns, times 40 / 24
  // executions, in the median repetition by time.
  const RunSet runs = read_run_directory(testing::fixture_dir("mandel-static"));
  std::vector<std::pair<double, double>> repetitions;  // time, imbalance
  for (const RunFile& run : runs.usable) {
    if (run.threads != 8 || run.input != "800") continue;
    for (const RegionRecord& r : run.profile->regions) {
      if (r.location.offset != "0x1233") continue;
      double sum = 0.0;
      for (const ThreadRecord& t : r.threads) sum += t.imbalance_ns;
      repetitions.emplace_back(r.wall_ns, sum / 8.0 * (40.0 / 24.0) * 1e-9);
    }
  }
  ASSERT_EQ(repetitions.size(), 3u);
  std::sort(repetitions.begin(), repetitions.end());
  const double expected = repetitions[1].second;
  const SeriesAnalysis& s = mandel.reference_series();
  ASSERT_EQ(s.input, "800");
  ASSERT_FALSE(s.hints.empty());
  EXPECT_EQ(s.hints[0].kind, HintKind::kImbalance);
  EXPECT_NEAR(s.hints[0].gain, expected, 1e-9 * expected);
  EXPECT_NEAR(point_at(s, 8).cost.imbalance, expected, 1e-9 * expected);
}

TEST(ReportAnalysis, MandelbrotBalancingGainPredictedWithinFifteenPercent) {
  // ScalOMP 5.2: predicted gain of perfect balance (static) against the time saved by
  // schedule(dynamic), at every thread count where the prediction is worth a hint.
  const RegionReport& static_region =
      region_by_label(fixture_report("mandel-static"), "mandel.c:42 (main)");
  const RegionReport& dynamic_region =
      region_by_label(fixture_report("mandel-dynamic"), "mandel.c:42 (main)");
  for (int threads : {4, 8}) {
    const PointAnalysis& before = point_at(static_region.reference_series(), threads);
    const PointAnalysis& after = point_at(dynamic_region.reference_series(), threads);
    const double predicted = before.cost.imbalance;
    const double measured = before.time - after.time;
    EXPECT_GT(measured, 0.3 * before.time);
    EXPECT_LT(std::fabs(predicted - measured), 0.15 * measured)
        << threads << " threads: predicted " << predicted << " s, measured " << measured << " s";
  }
  // After the change the region is balanced: no imbalance hint left.
  for (const Hint& h : dynamic_region.reference_series().hints) {
    EXPECT_NE(h.kind, HintKind::kImbalance);
  }
}

// A schedule change must save more than the program's run-to-run noise lets a run show at that
// thread count to be advised: the report hands each loop's price that least visible gain.
TEST(ReportAnalysis, ALoopsPriceMustBeatTheProgramsRunToRunNoise) {
  const Report& report = fixture_report("mandel-loop");
  const SeriesAnalysis& mandel = region_by_label(report, "mandel.c:42 (main)").reference_series();
  const PointAnalysis& program = point_at(report.program_reference(), 8);
  ASSERT_EQ(program.repetitions, 3);
  // At least the hints' threshold (1% of the program's time): three runs can agree by chance.
  const double spread = least_visible_gain(program.time_noise, program.repetitions, program.time,
                                           AnalysisOptions{}.min_hint_fraction);
  ASSERT_GT(spread, 0.0);
  EXPECT_LE(program.time_noise, program.time_max - program.time_min);
  const auto loop = std::find_if(mandel.constructs.begin(), mandel.constructs.end(),
                                 [](const ConstructAnalysis& c) { return c.kind == "loop"; });
  ASSERT_NE(loop, mandel.constructs.end());
  ASSERT_TRUE(loop->price.has_value());
  ASSERT_TRUE(loop->price->priced) << loop->price->why;
  EXPECT_DOUBLE_EQ(loop->price->least_net, spread);
  // Mandelbrot's rows at 8 threads leave far more imbalance than the runs' spread: it pays.
  ASSERT_NE(loop->price->best(), nullptr);
  EXPECT_GT(loop->price->best()->net(), spread);
}

TEST(ReportAnalysis, LockRegionsClassifiedAsAlgorithmAndContention) {
  const Report& report = fixture_report("locks");
  const SeriesAnalysis& uncontended =
      region_by_label(report, "lockbench.c:30 (private_locks)").reference_series();
  const SeriesAnalysis& contended =
      region_by_label(report, "lockbench.c:52 (shared_lock)").reference_series();
  EXPECT_EQ(uncontended.lock_class, LockClass::kAlgorithm);
  EXPECT_EQ(contended.lock_class, LockClass::kContention);
  ASSERT_FALSE(uncontended.hints.empty());
  ASSERT_FALSE(contended.hints.empty());
  EXPECT_EQ(uncontended.hints[0].kind, HintKind::kLockAlgorithm);
  EXPECT_NE(uncontended.hints[0].advice.find("omp_sync_hint_uncontended"), std::string::npos);
  EXPECT_NE(uncontended.hints[0].advice.find("atomic"), std::string::npos);
  EXPECT_EQ(contended.hints[0].kind, HintKind::kLockContention);
  EXPECT_NE(contended.hints[0].advice.find("less sharing"), std::string::npos);
  // 2,000,000 acquisitions at 18 ns shared by 8 threads.
  EXPECT_NEAR(uncontended.reference().cost.lock_algorithm, 2e6 * 18e-9 / 8, 1e-12);
  // With one thread nobody contends: what the split calls contention there is the spread of
  // uncontended acquisitions above the fastest, well below the algorithm's cost.
  EXPECT_LT(contended.points.front().cost.lock_contention,
            0.5 * contended.points.front().cost.lock_algorithm);
}

TEST(ReportAnalysis, HintsAreRankedByPredictedGain) {
  for (const char* name : {"mandel-static", "locks", "stencil-inputs"}) {
    for (const RegionReport& r : fixture_report(name).regions) {
      for (const SeriesAnalysis& s : r.series) {
        for (std::size_t i = 1; i < s.hints.size(); ++i) {
          EXPECT_GE(s.hints[i - 1].gain, s.hints[i].gain) << name << " " << r.region.label;
        }
        for (const Hint& h : s.hints) {
          EXPECT_DOUBLE_EQ(h.time_after, s.reference().time - h.gain);
        }
      }
    }
  }
}

TEST(ReportAnalysis, RegionsSortedByPotentialGain) {
  for (const char* name : {"mandel-static", "mandel-dynamic", "locks", "stencil-inputs"}) {
    const Report& report = fixture_report(name);
    for (std::size_t i = 1; i < report.regions.size(); ++i) {
      EXPECT_GE(report.regions[i - 1].potential_gain, report.regions[i].potential_gain) << name;
    }
  }
  EXPECT_EQ(fixture_report("mandel-static").regions.front().region.label, "mandel.c:42 (main)");
  EXPECT_EQ(fixture_report("locks").regions.front().region.label, "lockbench.c:52 (shared_lock)");
  // With the imbalance gone, the serial code before it leads.
  EXPECT_EQ(fixture_report("mandel-dynamic").regions.front().region.kind, RegionKind::kSerial);
}

TEST(ReportAnalysis, PointsCarryTheRegionsTasks) {
  // tests/regions/report_fixtures.h, by hand.
  const Report& report = testing::fixture_report("tasks");
  const SeriesAnalysis& tasks = region_by_label(report, "fib.c:20 (main)").reference_series();
  const PointAnalysis& one = point_at(tasks, 1);
  const PointAnalysis& two = point_at(tasks, 2);
  EXPECT_TRUE(one.has_tasks());
  EXPECT_DOUBLE_EQ(one.tasks_created, 1000);
  EXPECT_DOUBLE_EQ(one.tasks_executed, 1000);
  EXPECT_NEAR(one.task, 5.3e-3, 1e-15);
  EXPECT_DOUBLE_EQ(two.tasks_created, 1000);
  EXPECT_DOUBLE_EQ(two.tasks_executed, 995);
  EXPECT_NEAR(two.task, 2.625e-3, 1e-15);
  // Time in tasks is work, not a cause: the costs are the fixture's walkthrough alone (500 ns per
  // measured execution and thread, all 10 executions).
  EXPECT_NEAR(two.cost.total(), 5e-6, 1e-15);
  for (const PointAnalysis& p :
       region_by_label(report, "fib.c:40 (main)").reference_series().points) {
    EXPECT_FALSE(p.has_tasks());
    EXPECT_EQ(p.task, 0.0);
  }
  for (const PointAnalysis& p : report.program_reference().points) EXPECT_FALSE(p.has_tasks());
}

TEST(ReportAnalysis, ProgramSeriesFromRunWallTimes) {
  const Report& report = fixture_report("mandel-static");
  const SeriesAnalysis& program = report.program_reference();
  EXPECT_EQ(program.input, "800");
  ASSERT_EQ(program.points.size(), 4u);
  const PointAnalysis& one = program.points[0];
  const PointAnalysis& eight = program.points[3];
  EXPECT_DOUBLE_EQ(eight.efficiency, one.time / (8.0 * eight.time));
  EXPECT_DOUBLE_EQ(eight.lost, eight.time - one.time / 8.0);
}

}  // namespace
}  // namespace ompscale::regions::report

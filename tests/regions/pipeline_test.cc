// ompscan across its components, end to end: `ompscan run` runs the test
// applications (tests/apps, gcc-built in OMPSCALE_APPS_GNU_DIR and clang-built in
// OMPSCALE_APPS_LLVM_DIR) at 1 and 2 threads under libompscan.so, `ompscan report DIR --format
// json` analyses the run files, and the report's regions, losses, lock classes and hints are
// checked against what each application was written to show (docs/ompscan-report.md):
//   - mandelbrot, schedule static: imbalance is the main loss, the hint says schedule(dynamic),
//     and its predicted gain is within 15% of what the dynamic schedule measures (ScalOMP 5.2);
//   - locks: own locks cost the lock algorithm, a shared lock contends (ScalOMP 5.3);
//   - critical_reduction: the critical section costs far more in locks than the reduction;
//   - nested: the inner region has its level and parent; tasks: created tasks are executed.
//
// Timing effects need both threads running at once, which a loaded 2-core machine does not always
// grant: the timing conditions are compared within one report (ratios, not absolute times) and
// must hold in one of kTimingAttempts experiments; structural ones must hold in every one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "tests/regions/pipeline_fixture.h"
#include "tests/support/process.h"

namespace ompscale::regions {
namespace {

using namespace pipeline;  // NOLINT: the fixture and its helpers

// ScalOMP 5.2 on our Mandelbrot: the static schedule's imbalance hint predicts what the dynamic
// schedule gains. Both schedules are inputs of one experiment (the app's loop is
// schedule(runtime), one region), so `ompscan run` interleaves them repetition by repetition and a
// slow phase of the machine hits both; the report's times are medians of 3 repetitions.
TEST_P(PipelineTest, StaticMandelbrotImbalanceHintPredictsTheDynamicScheduleGain) {
  judge_time_sharing_by_the_machines_load();
  expect_in_one_attempt(
      "the imbalance hint predicting the dynamic schedule's gain within 15%",
      [&](int attempt) -> std::string {
        const Json report = scan("mandelbrot" + std::to_string(attempt),
                                 {"--reps", "3", "--inputs", "static", "dynamic"},
                                 {"mandelbrot", "860", "{input}"}, {"--input", "static"});
        if (report.is_null()) return "no report";
        EXPECT_EQ(report["reference_input"], "static");
        const std::vector<const Json*> regions = parallel_regions(report);
        EXPECT_EQ(regions.size(), 1u);
        if (regions.empty()) return "no parallel region";
        const Json& region = *regions[0];
        EXPECT_EQ(region["rank"], 1);  // the program's region with the largest potential gain
        EXPECT_THAT(region["label"].get<std::string>(), HasSubstr("mandelbrot.cc"));
        const Json* statics = series_at(region, "static");
        const Json* dynamic = series_at(region, "dynamic");
        EXPECT_TRUE(statics != nullptr && dynamic != nullptr) << region.dump();
        if (statics == nullptr || dynamic == nullptr) return "no series per schedule";
        const Json* static2 = point_at(*statics, 2);
        const Json* dynamic1 = point_at(*dynamic, 1);
        const Json* dynamic2 = point_at(*dynamic, 2);
        EXPECT_TRUE(static2 && dynamic1 && dynamic2) << region.dump();
        if (!(static2 && dynamic1 && dynamic2)) return "missing points";
        if ((*static2)["time_shared"] == true || (*dynamic2)["time_shared"] == true) {
          return std::string(kTimeShared) +
                 ": every run at 2 threads of a schedule had fewer CPUs free than threads";
        }
        // 3 repetitions, fewer when time-shared ones were left out beside ones that ran alone.
        for (const Json* point : {static2, dynamic2}) {
          EXPECT_GE((*point)["repetitions"].get<int>(), 1);
          EXPECT_LE((*point)["repetitions"].get<int>(), 3);
        }

        // The static schedule's first hint: balance the loop with the dynamic or guided schedule
        // that pays most, set with omp_set_schedule (the loop is schedule(runtime) and the program
        // sets it; a GCC build's runs have OMP_SCHEDULE set to libgomp's default, which the
        // program overrides; clang's have none, and the advice names both ways); its gain is net
        // of what dispatching the chunks costs (issue 26), so at most the imbalance.
        EXPECT_FALSE((*statics)["hints"].empty()) << statics->dump();
        if ((*statics)["hints"].empty()) return "no hint";
        const Json& hint = (*statics)["hints"][0];
        EXPECT_EQ(hint["kind"], "imbalance") << statics->dump(1);
        EXPECT_THAT(hint["advice"].get<std::string>(), HasSubstr("omp_set_schedule(omp_sched_"));
        EXPECT_EQ(hint["priced"], true);
        EXPECT_EQ(hint["loops"].size(), 1u) << hint.dump(1);
        if (hint["loops"].empty()) return "no loop in the hint";
        EXPECT_EQ(hint["loops"][0]["runtime_schedule"], true);
        const double predicted = hint["gain_s"];
        EXPECT_GT(predicted, 0.0);
        EXPECT_LE(predicted, (*static2)["cost"]["imbalance_s"].get<double>() * (1 + 1e-9));
        // Dynamic scheduling balances: what little imbalance is left is a row's worth.
        EXPECT_LT((*dynamic2)["cost"]["imbalance_s"].get<double>(), predicted / 10)
            << dynamic->dump(1);

        // Imbalance is the biggest part of the static schedule's lost time.
        const Json& loss = (*static2)["loss"];
        const double imbalance = loss["imbalance_s"];
        double largest_other = 0;
        std::string largest_name = "none";
        for (const auto& [name, value] : loss.items()) {
          if (name != "imbalance_s" && value.get<double>() > largest_other) {
            largest_other = value;
            largest_name = name;
          }
        }
        const double measured =
            (*static2)["time_s"].get<double>() - (*dynamic2)["time_s"].get<double>();
        std::ostringstream seen;
        seen << "static at 2 threads " << (*static2)["time_s"] << " s (spread "
             << (*static2)["spread"] << "), dynamic at 1 thread " << (*dynamic1)["time_s"]
             << " s, at 2 threads " << (*dynamic2)["time_s"] << " s (spread "
             << (*dynamic2)["spread"] << "): measured gain " << measured << " s, predicted "
             << predicted << " s (" << (measured > 0 ? 100 * (predicted - measured) / measured : 0)
             << "%); loss: imbalance " << imbalance << " s, largest other " << largest_name << " "
             << largest_other << " s";
        if (!(imbalance > largest_other)) return seen.str();
        if (!(measured > 0 && std::fabs(predicted - measured) <= 0.15 * measured)) {
          return seen.str();
        }
        return "";
      });
}

// ScalOMP 5.3: the same acquisitions, uncontended (each thread its own lock) in region 1 and on
// one shared lock in region 2. The first is lock-algorithm cost (too many lock calls), the second
// contention.
TEST_P(PipelineTest, OwnLocksCostTheAlgorithmAndASharedLockContends) {
  expect_in_one_attempt(
      "own locks classified as algorithm and the shared lock as contention",
      [&](int attempt) -> std::string {
        const Json report =
            scan("locks" + std::to_string(attempt), {"--reps", "1"}, {"locks", "100000"});
        if (report.is_null()) return "no report";
        EXPECT_EQ(parallel_regions(report).size(), 2u);
        const std::vector<const Json*> own_regions = parallel_regions(report, "own_locks");
        const std::vector<const Json*> shared_regions = parallel_regions(report, "shared_lock");
        EXPECT_EQ(own_regions.size(), 1u);
        EXPECT_EQ(shared_regions.size(), 1u);
        if (own_regions.size() != 1 || shared_regions.size() != 1) return "regions not found";
        const Json& own = *own_regions[0];
        const Json& shared = *shared_regions[0];
        // Every acquisition counted at both thread counts, at the application's call site.
        expect_lock_sites(own, "lock", 100000, "locks.cc");
        expect_lock_sites(shared, "lock", 100000, "locks.cc");
        const Json* own_series = series_at(own);
        const Json* shared_series = series_at(shared);
        if (own_series == nullptr || shared_series == nullptr) return "no series";
        const Json* own2 = point_at(*own_series, 2);
        const Json* shared2 = point_at(*shared_series, 2);
        EXPECT_TRUE(own2 && shared2);
        if (!(own2 && shared2)) return "no point at 2 threads";

        // Uncontended locks: the advice is fewer lock calls, atomic, or an uncontended lock hint.
        const Json* own_algorithm = hint_of(*own_series, "lock-algorithm");
        EXPECT_NE(own_algorithm, nullptr) << own_series->dump(1);
        if (own_algorithm != nullptr) {
          const std::string advice = (*own_algorithm)["advice"];
          EXPECT_THAT(advice, HasSubstr("fewer lock calls"));
          EXPECT_THAT(advice, HasSubstr("atomic"));
          EXPECT_THAT(advice, HasSubstr("omp_sync_hint_uncontended"));
        }

        const Json* shared_contention = hint_of(*shared_series, "lock-contention");
        const double own_contention = (*own2)["cost"]["lock_contention_s"];
        const double shared_contended = (*shared2)["cost"]["lock_contention_s"];
        std::ostringstream seen;
        seen << "own locks: class " << (*own_series)["lock_class"] << ", cost at 2 threads "
             << (*own2)["cost"].dump() << "; shared lock: class " << (*shared_series)["lock_class"]
             << ", cost at 2 threads " << (*shared2)["cost"].dump() << ", loss "
             << (*shared2)["loss"].dump() << ", lock-contention hint "
             << (shared_contention ? shared_contention->dump() : "none");
        if ((*own_series)["lock_class"] != "algorithm" ||
            (*shared_series)["lock_class"] != "contention") {
          return seen.str();
        }
        // The shared lock's contention grew beyond perfect scaling, and far beyond the own locks'.
        if (!((*shared2)["loss"]["lock_contention_s"].get<double>() > 0 &&
              shared_contended > 3 * own_contention)) {
          return seen.str();
        }
        // Its first lock hint is about contention: less sharing or another lock.
        if (shared_contention == nullptr ||
            !(gain_of(shared_contention) > gain_of(hint_of(*shared_series, "lock-algorithm")))) {
          return seen.str();
        }
        EXPECT_THAT((*shared_contention)["advice"].get<std::string>(),
                    HasSubstr("omp_sync_hint_contended"));
        return "";
      });
}

// The same sum with a critical section around every addition and with reduction(+): the critical
// region's lock costs at 2 threads (what removing them would save; the per-cause losses can be
// negative when 1 thread already paid them) and its potential gain dwarf the reduction's.
TEST_P(PipelineTest, CriticalSectionCostsFarMoreInLocksThanTheReduction) {
  expect_in_one_attempt(
      "the critical section's lock costs far above the reduction's",
      [&](int attempt) -> std::string {
        const Json report = scan("critical" + std::to_string(attempt), {"--reps", "1"},
                                 {"critical_reduction", "100000"});
        if (report.is_null()) return "no report";
        const std::vector<const Json*> critical_regions = parallel_regions(report, "sum_critical");
        const std::vector<const Json*> reduction_regions =
            parallel_regions(report, "sum_reduction");
        EXPECT_EQ(critical_regions.size(), 1u);
        EXPECT_EQ(reduction_regions.size(), 1u);
        if (critical_regions.size() != 1 || reduction_regions.size() != 1) {
          return "regions not found";
        }
        const Json& critical = *critical_regions[0];
        const Json& reduction = *reduction_regions[0];
        expect_lock_sites(critical, "critical", 100000, "critical_reduction.cc");
        const Json* critical_series = series_at(critical);
        const Json* reduction_series = series_at(reduction);
        if (critical_series == nullptr || reduction_series == nullptr) return "no series";
        const Json* critical2 = point_at(*critical_series, 2);
        const Json* reduction2 = point_at(*reduction_series, 2);
        EXPECT_TRUE(critical2 && reduction2);
        if (!(critical2 && reduction2)) return "no point at 2 threads";
        // The critical section's lock hint names it and proposes a reduction.
        const Json* lock_hint = hint_of(*critical_series, "lock-algorithm");
        if (lock_hint == nullptr) lock_hint = hint_of(*critical_series, "lock-contention");
        EXPECT_NE(lock_hint, nullptr) << critical_series->dump(1);
        if (lock_hint != nullptr) {
          EXPECT_THAT((*lock_hint)["advice"].get<std::string>(), HasSubstr("reduction"));
          EXPECT_THAT((*lock_hint)["advice"].get<std::string>(),
                      HasSubstr("critical at critical_reduction.cc"));
        }

        auto lock_cost = [](const Json& point) {
          return point["cost"]["lock_algorithm_s"].get<double>() +
                 point["cost"]["lock_contention_s"].get<double>();
        };
        const double critical_locks = lock_cost(*critical2);
        const double reduction_locks = lock_cost(*reduction2);
        const double critical_gain = critical["potential_gain_s"];
        const double reduction_gain = reduction["potential_gain_s"];
        std::ostringstream seen;
        seen << "lock costs at 2 threads: critical " << critical_locks << " s of "
             << (*critical2)["time_s"] << " s, reduction " << reduction_locks << " s of "
             << (*reduction2)["time_s"] << " s; potential gains " << critical_gain << " s and "
             << reduction_gain << " s";
        if (!(critical_locks > 0 && critical_locks > 10 * reduction_locks &&
              critical_gain > 10 * reduction_gain)) {
          return seen.str();
        }
        // The critical region ranks above the reduction.
        EXPECT_LT(critical["rank"].get<int>(), reduction["rank"].get<int>());
        return "";
      });
}

TEST_P(PipelineTest, NestedRegionHasItsLevelAndParent) {
  const Json report = scan("nested", {"--reps", "1"}, {"nested", "200000"});
  ASSERT_FALSE(report.is_null());
  const std::vector<const Json*> regions = parallel_regions(report, "nested.cc");
  ASSERT_EQ(regions.size(), 2u);
  const Json& outer = *(regions[0]->at("nesting_level") == 0 ? regions[0] : regions[1]);
  const Json& inner = *(regions[0]->at("nesting_level") == 0 ? regions[1] : regions[0]);
  EXPECT_EQ(outer["nesting_level"], 0);
  EXPECT_EQ(outer["parent_key"], "");
  EXPECT_EQ(inner["nesting_level"], 1);
  EXPECT_EQ(inner["parent_key"], outer["key"]);
  EXPECT_NE(inner["key"], outer["key"]);
  const Json* outer_series = series_at(outer);
  const Json* inner_series = series_at(inner);
  ASSERT_TRUE(outer_series && inner_series);
  for (int threads : {1, 2}) {
    const Json* o = point_at(*outer_series, threads);
    const Json* i = point_at(*inner_series, threads);
    ASSERT_TRUE(o && i) << threads;
    EXPECT_EQ((*o)["executions"], 1);
    EXPECT_EQ((*i)["executions"], 2);  // one per outer thread
    EXPECT_GT((*i)["time_s"].get<double>(), 0);
  }
  // Only outermost regions have serial time before them.
  for (const Json& r : report["regions"]) {
    EXPECT_NE(r["key"], "serial:" + inner["key"].get<std::string>());
  }
}

TEST_P(PipelineTest, TaskRegionExecutesTheTasksItCreates) {
  const Json report = scan("tasks", {"--reps", "1"}, {"tasks", "24"});
  ASSERT_FALSE(report.is_null());
  const std::vector<const Json*> regions = parallel_regions(report, "tasks.cc");
  ASSERT_EQ(regions.size(), 1u);
  const Json* series = series_at(*regions[0]);
  ASSERT_NE(series, nullptr);
  // The report's task counts (scaled to all executions: here the one execution was measured).
  std::vector<double> reported;
  for (int threads : {1, 2}) {
    const Json* p = point_at(*series, threads);
    ASSERT_NE(p, nullptr) << threads;
    EXPECT_GT((*p)["time_s"].get<double>(), 0);
    ASSERT_TRUE(p->contains("tasks")) << threads << " threads: " << p->dump();
    const Json& tasks = (*p)["tasks"];
    EXPECT_GT(tasks["created"].get<double>(), 0) << threads;
    EXPECT_EQ(tasks["created"].get<double>(), tasks["executed"].get<double>()) << threads;
    EXPECT_GT(tasks["task_s"].get<double>(), 0) << threads;
    reported.push_back(tasks["created"].get<double>());
  }
  ASSERT_EQ(reported.size(), 2u);
  EXPECT_EQ(reported[0], reported[1]);
  // The profiles `ompscan run` embedded hold the same counts.
  const std::vector<Json> files = run_files("tasks");
  ASSERT_EQ(files.size(), 2u);
  std::vector<std::uint64_t> created;
  for (const Json& file : files) {
    ASSERT_TRUE(file["profile"].is_object()) << file["profile_error"];
    for (const Json& r : file["profile"]["regions"]) {
      if (r["kind"] != "parallel") continue;
      const Json& tasks = r["tasks"];
      EXPECT_GT(tasks["created"].get<std::uint64_t>(), 0u);
      EXPECT_EQ(tasks["created"], tasks["executed"]) << file["run_id"];
      std::uint64_t task_ns = 0;
      for (const Json& t : r["threads"]) task_ns += t.value("task_ns", 0ull);
      EXPECT_GT(task_ns, 0u) << file["run_id"];
      created.push_back(tasks["created"]);
    }
  }
  // The task tree does not depend on the thread count.
  ASSERT_EQ(created.size(), 2u);
  EXPECT_EQ(created[0], created[1]);
  EXPECT_EQ(static_cast<double>(created[0]), reported[0]);
}

// A task-parallel sort whose tasks one thread creates and every thread runs
// at the single's implicit barrier (tests/apps/task_sort.cc). Their time is task work (and
// waiting for the last tasks), not barrier walkthrough, and the hints speak of tasks, not of
// barriers or loop schedules. Before, the walkthrough hint claimed most of the region.
TEST_P(PipelineTest, TasksRunAtABarrierAreTaskWorkNotWalkthrough) {
  expect_in_one_attempt(
      "task time at the barrier kept out of the walkthrough", [&](int attempt) -> std::string {
        const Json report =
            scan("task_sort" + std::to_string(attempt), {"--reps", "1"}, {"task_sort", "1000000"});
        if (report.is_null()) return "no report";
        const FoundPoint at = only_region_point(report, "task_sort.cc", 2);
        if (at.point == nullptr) return at.missing;
        const Json* series = at.series;
        const Json* two = at.point;
        // Structural: the tasks ran at barriers, were counted there, and each phase's came from
        // one thread (the two singles may run on different threads).
        EXPECT_GT((*two)["tasks"]["barrier_task_s"].get<double>(), 0) << two->dump();
        EXPECT_GE((*two)["tasks"]["top_creator_created"].get<double>(),
                  0.5 * (*two)["tasks"]["created"].get<double>());
        for (const Json& hint : (*series)["hints"]) {
          const std::string advice = hint["advice"];
          EXPECT_THAT(advice, ::testing::Not(HasSubstr("schedule(dynamic)"))) << hint.dump();
          if (hint["kind"] == "imbalance" || hint["kind"] == "task-wait") {
            EXPECT_THAT(hint["problem"].get<std::string>(), HasSubstr("task")) << hint.dump();
          }
        }
        const double time = (*two)["time_s"];
        const double walkthrough = (*two)["cost"]["walkthrough_s"];
        std::ostringstream seen;
        seen << "at 2 threads: time " << time << " s, cost " << (*two)["cost"].dump() << ", hints "
             << (*series)["hints"].dump();
        if (!(walkthrough < 0.1 * time)) return seen.str();
        if (!(*series)["hints"].empty() && (*series)["hints"][0]["kind"] == "walkthrough") {
          return seen.str();
        }
        return "";
      });
}

// One slow, imbalanced repetition among fast, balanced ones
// (tests/apps/slow_repetition.cc). The point's time is a median, so its costs must come from the
// same repetition: before, their mean over repetitions gave an imbalance gain of 240% of the
// region and a negative time after.
TEST_P(PipelineTest, OneSlowRepetitionMakesNoGainLargerThanTheRegion) {
  const std::string marker = (scratch_ / "slow_repetition.marker").string();
  const Json report = scan("slow", {"--reps", "3"}, {"slow_repetition", marker});
  ASSERT_FALSE(report.is_null());
  ASSERT_TRUE(fs::exists(marker)) << "no run had two threads";
  const std::vector<const Json*> regions = parallel_regions(report, "slow_repetition.cc");
  ASSERT_EQ(regions.size(), 1u);
  const Json* series = series_at(*regions[0]);
  ASSERT_NE(series, nullptr);
  const Json* two = point_at(*series, 2);
  ASSERT_NE(two, nullptr);
  EXPECT_EQ((*two)["repetitions"], 3);
  // The slow repetition happened: thread 0 spun ten times the whole work more.
  EXPECT_GT((*two)["time_max_s"].get<double>(), 2 * (*two)["time_s"].get<double>()) << *two;
  for (const Json& p : (*series)["points"]) {
    const double time = p["time_s"];
    double costs = 0;
    for (const auto& [name, value] : p["cost"].items()) costs += value.get<double>();
    EXPECT_LE(costs, time) << p;
    EXPECT_LE(p["potential_gain_s"].get<double>(), time) << p;
  }
  for (const Json& hint : (*series)["hints"]) {
    EXPECT_LE(hint["gain_s"].get<double>(), (*two)["time_s"].get<double>()) << hint;
    EXPECT_GE(hint["time_after_s"].get<double>(), 0.0) << hint;
  }
}

// The application's own "loop_s=" figure from a run's log, or -1.
double logged_seconds(const fs::path& log) {
  const std::string text = test_support::slurp(log);
  const auto at = text.find("loop_s=");
  return at == std::string::npos ? -1.0 : std::stod(text.substr(at + 7));
}

// A region executed 10,000 times, short enough to be sampled, whose 11th
// execution stalls 20 ms (tests/apps/sampled_region.cc). Each measured execution counts by the
// inverse of its own sampling probability, so the stall counts once, and the region and its
// serial gaps add up to the process time (calibrated to it, as they tile it) and to about the
// loop's own wall time (the process time also holds the runtime's start and end). Before, every
// measured execution was scaled by executions / measured and the stall counted about 30 times.
TEST_P(PipelineTest, SampledRegionTotalsMatchTheProcessAndTheLoopsOwnTime) {
  expect_in_one_attempt(
      "sampled totals matching the loop's own time", [&](int attempt) -> std::string {
        const std::string tag = "sampled" + std::to_string(attempt);
        const Json report = scan(tag, {"--reps", "1"}, {"sampled_region"});
        if (report.is_null()) return "no report";
        const std::vector<const Json*> regions = parallel_regions(report, "sampled_region.cc");
        EXPECT_EQ(regions.size(), 1u);
        if (regions.size() != 1) return "no region";
        const Json* gaps = nullptr;
        for (const Json& r : report["regions"]) {
          if (r["key"] == "serial:" + (*regions[0])["key"].get<std::string>()) gaps = &r;
        }
        EXPECT_NE(gaps, nullptr);
        if (gaps == nullptr) return "no serial gaps";
        std::ostringstream seen;
        for (const Json& file : run_files(tag)) {
          const int threads = file["threads"];
          const Json* p = point_at(*series_at(*regions[0]), threads);
          const Json* g = point_at(*series_at(*gaps), threads);
          EXPECT_TRUE(p != nullptr && g != nullptr) << threads;
          if (p == nullptr || g == nullptr) return "missing points";
          EXPECT_EQ((*p)["executions"], 10000);
          EXPECT_LT((*p)["sampling_ratio"].get<double>(), 1.0) << "not sampled: nothing to test";
          EXPECT_TRUE(p->contains("idle_se_s")) << *p;  // only the split is estimated
          const double total = (*p)["time_s"].get<double>() + (*g)["time_s"].get<double>();
          const double process = file["profile"]["process_ns"].get<double>() * 1e-9;
          EXPECT_NEAR(total, process, 0.02 * process) << threads << " threads";
          const double loop = logged_seconds(runs_dir(tag) / file["log"].get<std::string>());
          EXPECT_GT(loop, 0) << threads;
          seen << threads << " threads: region " << (*p)["time_s"] << " s + gaps " << (*g)["time_s"]
               << " s, process " << process << " s, loop " << loop << " s; ";
          if (std::fabs(total - loop) > 0.3 * loop) return seen.str();
        }
        // The whole-run POP efficiencies stay within [0, 1].
        for (const Json& run : report["pop"]) {
          for (const char* part : {"parallel_regions", "whole_run"}) {
            for (const char* e :
                 {"load_balance", "communication_efficiency", "parallel_efficiency"}) {
              EXPECT_GE(run[part][e].get<double>(), 0.0) << run;
              EXPECT_LE(run[part][e].get<double>(), 1.0) << run;
            }
          }
        }
        return "";
      });
}

// Found on real applications: LULESH's equation-of-state regions run once per material region,
// whose sizes differ tenfold in a cycle; at 700-3,500 executions of a few us, sampled 1 in 8-16
// by cost, their estimated totals came out 0.3-4x the totals measured in full (the sample missed
// or doubled the long executions), so they had to be measured in full. Now every execution's
// wall time is summed, sampled or not, and the measured ones only estimate how the team's time
// splits (sampling.h). A region of 5 us executions, every 11th 30 times longer
// (tests/apps/varied_region.cc), executed 700 times: sampled, and its total still matches the
// loop's own time (the rest of the loop, a few percent, is the code between executions). A
// Horvitz-Thompson estimate of it, one in two to four measured, is 16% off or more one time in
// three.
TEST_P(PipelineTest, ARegionOfVariedExecutionsIsSampledYetItsTotalIsExact) {
  expect_in_one_attempt("a sampled total matching the loop's time", [&](int attempt) {
    const std::string tag = "varied" + std::to_string(attempt);
    const Json report = scan(tag, {"--reps", "1", "--no-native-runs"},
                             {"varied_region", "700", "5000", "150000", "11"});
    if (report.is_null()) return std::string("no report");
    std::ostringstream seen;
    for (const Json& file : run_files(tag)) {
      const Json* varied = nullptr;
      for (const Json& region : file["profile"]["regions"]) {
        if (region["kind"] == "parallel" && region["executions"] == 700) varied = &region;
      }
      EXPECT_NE(varied, nullptr) << "no region of 700 executions";
      if (varied == nullptr) return std::string("no region");
      EXPECT_EQ((*varied)["wall_se_ns"], 0);
      EXPECT_TRUE(varied->contains("idle_se_ns"));
      // One odd execution early on can keep a run measuring densely: another attempt.
      if ((*varied)["executions_measured"].get<int>() >= 700) {
        return "not sampled at " + file["threads"].dump() + " threads";
      }
      const double total = (*varied)["wall_ns"].get<double>() * 1e-9;
      const double loop = logged_seconds(runs_dir(tag) / file["log"].get<std::string>());
      EXPECT_GT(loop, 0);
      seen << file["threads"] << " threads: region " << total << " s, loop " << loop << " s; ";
      if (total > loop || total < 0.85 * loop) return seen.str();
    }
    return std::string();
  });
}

// Every format says which runtime was measured; a GCC build also runs once
// per thread count on its own libgomp (no tool), compared in the report; its static loops are
// invisible to OMPT and the schedule advice says so.
TEST_P(PipelineTest, ReportNamesTheRuntimeAndComparesAGccBuildWithItsOwn) {
  const bool gnu = GetParam() == Compiler::kGnu;
  const Json report = scan("runtime", {"--reps", "1"}, {"imbalance_serial", "300000"});
  ASSERT_FALSE(report.is_null());
  const Json& runtime = report["runtime"];
  EXPECT_THAT(runtime["library"].get<std::string>(), HasSubstr("libomp"));
  EXPECT_THAT(runtime["version"].get<std::string>(), HasSubstr("LLVM"));
  EXPECT_EQ(runtime["gomp_abi"], gnu);
  EXPECT_THAT(runtime["summary"].get<std::string>(), HasSubstr("Measured on libomp"));
  std::vector<std::string> native_ids;
  for (const Json& file : run_files("runtime", true)) {
    if (!file.value("native", false)) continue;
    native_ids.push_back(file["run_id"]);
    EXPECT_TRUE(file["profile"].is_null());
    EXPECT_THAT(file["runtime"]["library"].get<std::string>(),
                HasSubstr(file["variant"] == "libomp" ? "libomp" : "libgomp"));
    EXPECT_GT(file["wall_ns"].get<double>(), 0);
  }
  if (!gnu) {
    EXPECT_TRUE(native_ids.empty());
    EXPECT_TRUE(runtime["native"].empty());
    return;
  }
  // Its own libgomp at each thread count, every runtime setting at the largest (issue 26).
  EXPECT_EQ(native_ids,
            (std::vector<std::string>{"t1-native-r0", "t2-active-r0", "t2-libomp-r0",
                                      "t2-native-r0", "t2-passive-r0", "t2-spincount-r0"}));
  ASSERT_EQ(runtime["native"].size(), 6u);
  for (const Json& c : runtime["native"]) {
    EXPECT_GT(c["native_s"].get<double>(), 0) << c;
    EXPECT_GT(c["measured_s"].get<double>(), 0) << c;
    EXPECT_EQ(c["repetitions"].get<int>() + c["time_shared_left_out"].get<int>(), 1) << c;
    EXPECT_TRUE(c.contains("time_shared")) << c;
  }
  EXPECT_THAT(runtime["summary"].get<std::string>(), HasSubstr("GOMP ABI"));
  EXPECT_THAT(runtime["summary"].get<std::string>(), HasSubstr("On its own runtime (libgomp"));
  // Native runs are neither analysed nor "without profile".
  EXPECT_TRUE(report["runs"]["without_profile"].empty());
  // The imbalanced region's loops are static: unseen in a GCC build, and the advice says so.
  bool advised = false;
  for (const Json* region : parallel_regions(report, "imbalance_serial.cc")) {
    for (const Json& hint : (*series_at(*region))["hints"]) {
      if (hint["kind"] != "imbalance") continue;
      EXPECT_THAT(hint["advice"].get<std::string>(), HasSubstr("static loops"));
      advised = true;
    }
  }
  EXPECT_TRUE(advised) << "no imbalance hint";
  // The other formats say it too.
  for (const char* format : {"text", "csv", "extrap"}) {
    const test_support::Outcome out = test_support::run_program(
        {OMPSCALE_OMPSCAN_BIN, "report", runs_dir("runtime").string(), "--format", format},
        scratch_);
    EXPECT_EQ(out.status, 0) << out.err;
    EXPECT_THAT(out.out, HasSubstr("GOMP ABI")) << format;
  }
}

// A solver whose time steps run in one parallel region with several
// worksharing constructs (tests/apps/several_loops.cc) gets a row per construct under the region:
// each loop with its barrier, the single, the region's end; in source order, each with its time,
// imbalance and hint. Before, the region was one row. A GCC build's static loops are unseen by
// OMPT: their implicit barriers are rows of their own at the loops' lines.
TEST_P(PipelineTest, ASingleRegionWithSeveralLoopsHasARowPerConstruct) {
  const bool gnu = GetParam() == Compiler::kGnu;
  expect_in_one_attempt("the imbalanced loop's row showing the imbalance",
                        [&](int attempt) -> std::
                                             string {
                                               const Json report =
                                                   scan("loops" + std::to_string(attempt),
                                                        {"--reps", "1"},
                                                        {"several_loops", "40000", "10"});
                                               if (report.is_null()) return "no report";
                                               const std::vector<const Json*> regions =
                                                   parallel_regions(report, "several_loops.cc");
                                               EXPECT_EQ(regions.size(), 1u);
                                               if (regions.size() != 1) return "no region";
                                               const Json& series = *series_at(*regions[0]);
                                               std::vector<std::string> labels;
                                               for (const Json& c : series["constructs"])
                                                 labels.push_back(c["label"]);
                                               const std::vector<std::string> expected =
            gnu ? std::vector<std::string>{"barrier at several_loops.cc:31",
                                           "barrier at several_loops.cc:33",
                                           "single at several_loops.cc:34",
                                           "loop at several_loops.cc:38", "end of the region"}
                : std::vector<std::string>{"loop at several_loops.cc:30",
                                           "loop at several_loops.cc:32",
                                           "single at several_loops.cc:34",
                                           "loop at several_loops.cc:38", "end of the region"};
                                               EXPECT_EQ(labels, expected);
                                               if (labels != expected) return "other constructs";
                                               const Json* region2 = point_at(series, 2);
                                               double constructs = 0;
                                               const Json* static_balanced = nullptr;
                                               const Json* static_imbalanced = nullptr;
                                               for (const Json& c : series["constructs"]) {
                                                 const Json* p = point_at(c, 2);
                                                 EXPECT_NE(p, nullptr) << c;
                                                 if (p == nullptr)
                                                   return "a construct without a point at 2 "
                                                          "threads";
                                                 EXPECT_EQ((*p)["executions"],
                                                           c["kind"] == "end" ? 1 : 10)
                                                     << c;
                                                 for (const char* k :
                                                      {"time_s", "imbalance_s", "walkthrough_s",
                                                       "startup_s", "task_wait_s"}) {
                                                   constructs += (*p)[k].get<double>();
                                                 }
                                                 if (c["label"].get<std::string>().ends_with(
                                                         gnu ? ":31" : ":30"))
                                                   static_balanced = p;
                                                 if (c["label"].get<std::string>().ends_with(
                                                         gnu ? ":33" : ":32")) {
                                                   static_imbalanced = p;
                                                   if (!gnu) {
                                                     EXPECT_EQ(c["schedule"], "static");
                                                   }
                                                 }
                                                 if (c["label"] == "loop at several_loops.cc:38") {
                                                   EXPECT_EQ(c["schedule"],
                                                             gnu ? "dynamic" : "dynamic,64");
                                                 }
                                               }
                                               // The rows are parts of the region: per thread, no
                                               // more than its time.
                                               EXPECT_LE(constructs,
                                                         (*region2)["time_s"].get<double>() * 1.01);
                                               if (!((*static_imbalanced)["imbalance_s"]
                                                         .get<double>() >
                                                     (*static_balanced)["imbalance_s"]
                                                         .get<double>())) {
                                                 return "imbalance of the loop at line 32 " +
                                                        (*static_imbalanced).dump() +
                                                        " not above that at line 30 " +
                                                        (*static_balanced).dump();
                                               }
                                               return "";
                                             });
}

// An application that sets its own thread count (tests/apps/sets_threads.cc:
// always 2, as XSBench sets the processor count). The runs asked for 1 and 2 threads both had
// teams of 2: the report places them at 2 threads and warns, naming the runs. Before, the
// 2-thread run read as a 1-thread one and the scaling was made up.
TEST_P(PipelineTest, AnApplicationSettingItsOwnThreadCountIsPlacedAtItsTeamsAndFlagged) {
  expected_thread_counts_ = Json({2});
  const Json report = scan("sets", {"--reps", "1", "--no-native-runs"}, {"sets_threads"});
  ASSERT_FALSE(report.is_null());
  EXPECT_EQ(report["runs"]["team_mismatches"],
            Json::array({{{"run_id", "t1-r0"}, {"requested", 1}, {"observed", 2}}}));
  bool warned = false;
  for (const Json& note : report["notes"]) {
    const std::string text = note;
    if (text.find("sets its own thread count") != std::string::npos) {
      warned = true;
      EXPECT_THAT(text, HasSubstr("t1-r0 asked for 1, had teams of 2"));
    }
  }
  EXPECT_TRUE(warned) << report["notes"];
  const std::vector<const Json*> regions = parallel_regions(report, "sets_threads.cc");
  ASSERT_EQ(regions.size(), 1u);
  const Json* two = point_at(*series_at(*regions[0]), 2);
  ASSERT_NE(two, nullptr);
  EXPECT_EQ((*two)["repetitions"], 2);  // both runs, at the size their teams had
  EXPECT_EQ(point_at(*series_at(*regions[0]), 1), nullptr);
}

// An application that does its work and exits 1 (tests/apps/exits_one.cc, as
// XSBench and RSBench do on any non-default input). Its profiles are complete: the runs are
// analysed and listed with their exit status; --expect-exit 1 makes them ordinary runs. Before,
// the report said "no usable runs".
TEST_P(PipelineTest, RunsExitingOneAreAnalysedAndTheStatusCanBeExpected) {
  const Json report = scan("exits", {"--reps", "1", "--no-native-runs"}, {"exits_one"});
  ASSERT_FALSE(report.is_null());
  ASSERT_EQ(report["runs"]["exited_unexpectedly"].size(), 2u) << report["runs"];
  for (const Json& run : report["runs"]["exited_unexpectedly"]) EXPECT_EQ(run["exit_status"], 1);
  EXPECT_EQ(report["runs"]["analysed"], 2);
  EXPECT_EQ(parallel_regions(report, "exits_one.cc").size(), 1u);

  const Json expected =
      scan("expected", {"--reps", "1", "--no-native-runs", "--expect-exit", "1"}, {"exits_one"});
  ASSERT_FALSE(expected.is_null());
  EXPECT_TRUE(expected["runs"]["exited_unexpectedly"].empty());
  for (const Json& file : run_files("expected")) {
    EXPECT_EQ(file["status"], "ok");
    EXPECT_EQ(file["expected_exit_status"], 1);
  }
}

// A wrapper script that starts the application: the GOMP shim and the tool
// reach the whole process tree, so a GCC build run by the script is measured on libomp. Before,
// it ran on libgomp and every run was "without profile".
TEST_P(PipelineTest, AWrapperScriptsApplicationIsMeasured) {
  const fs::path script = scratch_ / "wrapper.sh";
  test_support::spit(script, "#!/bin/sh\nexec " + app("mandelbrot") + " \"$@\"\n");
  fs::permissions(script, fs::perms::owner_all);
  // scan() puts the application's directory in front; the script is run by its own path.
  const test_support::Outcome ran = test_support::run_program(
      {OMPSCALE_OMPSCAN_BIN, "run", "--threads", "1,2", "--progress", "never", "--tool",
       OMPSCALE_OMPSCAN_TOOL, "-o", runs_dir("wrapped").string(), "--", script.string(), "300",
       "static"},
      scratch_);
  ASSERT_EQ(ran.status, 0) << ran.err;
  const std::vector<Json> files = run_files("wrapped");
  ASSERT_EQ(files.size(), 2u);
  for (const Json& file : files) {
    EXPECT_TRUE(file["profile"].is_object()) << file["profile_error"];
    EXPECT_EQ(file["runtime"].value("process_tree_shim", false), true);
  }
}

// A run with fewer CPUs than threads (here one CPU for 2 threads, through
// the affinity mask `taskset -c 0`; on a loaded machine, other processes' CPU time and steal
// count too) is marked time-shared, and the hints waiting for a CPU inflates are withheld at its
// thread count. Before, the report advised schedules and wait policies for time sharing.
TEST_P(PipelineTest, ATimeSharedRunIsMarkedAndItsWaitingMakesNoHint) {
  const test_support::Outcome ran = test_support::run_program(
      {"/usr/bin/taskset", "-c", "0", OMPSCALE_OMPSCAN_BIN, "run", "--threads", "1,2", "--progress",
       "never", "--no-native-runs", "--tool", OMPSCALE_OMPSCAN_TOOL, "-o",
       runs_dir("shared").string(), "--", app("mandelbrot"), "300", "static"},
      scratch_);
  ASSERT_EQ(ran.status, 0) << ran.err;
  for (const Json& file : run_files("shared")) {
    EXPECT_EQ(file["time_sharing"]["cpus_allowed"], 1);
    EXPECT_EQ(file["time_sharing"]["time_shared"], file["threads"] == 2) << file["time_sharing"];
  }
  const test_support::Outcome reported = test_support::run_program(
      {OMPSCALE_OMPSCAN_BIN, "report", runs_dir("shared").string(), "--format", "json"}, scratch_);
  ASSERT_EQ(reported.status, 0) << reported.err;
  const Json report = Json::parse(reported.out);
  ASSERT_EQ(report["runs"]["time_shared"].size(), 1u);
  EXPECT_THAT(report["runs"]["time_shared"][0].get<std::string>(),
              HasSubstr("t2-r0: 1 CPU(s) allowed for 2 threads"));
  const std::vector<const Json*> regions = parallel_regions(report, "mandelbrot.cc");
  ASSERT_EQ(regions.size(), 1u);
  const Json& series = *series_at(*regions[0]);
  EXPECT_EQ((*point_at(series, 2))["time_shared"], true);
  EXPECT_EQ((*point_at(series, 1))["time_shared"], false);
  for (const Json& hint : series["hints"]) {
    EXPECT_TRUE(hint["kind"] == "lock-algorithm" || hint["kind"] == "serial") << hint;
  }
  // The static schedule's imbalance is there, but not advised on.
  bool withheld = false;
  for (const Json& hint : series["withheld_hints"])
    withheld = withheld || hint["kind"] == "imbalance";
  EXPECT_TRUE(withheld) << series["withheld_hints"];
}

// Full buffers the tool aggregated while the application ran lost nothing;
// the report says nothing was dropped (before: "the tool dropped N events" for every full
// buffer). tests/apps/heap_churn fills a buffer in its run.
TEST_P(PipelineTest, AggregatedFullBuffersAreNotReportedAsDropped) {
  setenv("OMPSCAN_SAMPLING", "all", 1);  // every execution's records: buffers fill
  const Json report = scan("buffers", {"--reps", "1", "--no-native-runs"}, {"heap_churn"});
  unsetenv("OMPSCAN_SAMPLING");
  ASSERT_FALSE(report.is_null());
  std::uint64_t full = 0, dropped = 0;
  for (const Json& file : run_files("buffers")) {
    full += file["profile"]["sampling"]["buffer_full_events"].get<std::uint64_t>();
    dropped += file["profile"]["sampling"]["dropped_events"].get<std::uint64_t>();
  }
  EXPECT_GT(full, 0u) << "no buffer filled: nothing to test";
  EXPECT_EQ(dropped, 0u);
  for (const Json& note : report["notes"]) {
    EXPECT_THAT(note.get<std::string>(), ::testing::Not(HasSubstr("dropped"))) << note;
  }
}

// A dynamic loop with chunks too large to balance
// (tests/apps/dynamic_chunks.cc: two chunks, one with three times the other's work). clang's loop
// is a dispatched one, which libomp 14 reports without its kind: the tool reads the schedule and
// chunk from the call, and the advice is smaller chunks, not schedule(dynamic). Before, it said
// "schedule(dynamic)".
TEST_P(PipelineTest, ADynamicChunkLoopIsToldSmallerChunks) {
  // Ten times the default work: the imbalance (a quarter of the loop) must stand above a
  // preemption of a few milliseconds when the other core is busy.
  const Json report =
      scan("chunks", {"--reps", "1", "--no-native-runs"}, {"dynamic_chunks", "8192", "10"});
  ASSERT_FALSE(report.is_null());
  const std::vector<const Json*> regions = parallel_regions(report, "dynamic_chunks.cc");
  ASSERT_EQ(regions.size(), 1u);
  const Json& series = *series_at(*regions[0]);
  ASSERT_EQ(series["constructs"].size(), 1u) << series["constructs"];
  // GCC builds call GOMP_loop_dynamic_start, whose chunk is not decoded.
  EXPECT_EQ(series["constructs"][0]["schedule"],
            GetParam() == Compiler::kLlvm ? "dynamic,4096" : "dynamic");
  const Json* imbalance = hint_of(series, "imbalance");
  ASSERT_NE(imbalance, nullptr) << series["hints"];
  const std::string advice = (*imbalance)["advice"];
  EXPECT_THAT(advice, ::testing::Not(HasSubstr("schedule(dynamic)")));
  if (GetParam() == Compiler::kGnu) {
    // GCC's chunk is not decoded: not priced, smaller chunks.
    EXPECT_THAT(advice, HasSubstr("smaller chunks"));
    EXPECT_EQ((*imbalance)["priced"], false);
  } else {
    // Issue 26: priced, a chunk smaller than 4096 (or that none pays).
    ASSERT_EQ((*imbalance)["loops"].size(), 1u) << imbalance->dump(1);
    const std::string schedule = (*imbalance)["loops"][0]["schedule"];
    EXPECT_TRUE(schedule == "guided" ||
                (schedule.starts_with("dynamic,") && std::stoi(schedule.substr(8)) < 4096))
        << schedule;
  }
}

// A function template's region inlined at two call sites
// (tests/apps/inlined_region.cc). Labels are short (no full C++ signature), never line 0, and
// name where each copy was inlined (clang's inline chain has both call sites; GCC's names line 34
// for both, so its second copy is numbered). Before: the demangled signature, and the second
// copy got its raw key ("[parallel:inlined_region+0x1f3a]") appended.
TEST_P(PipelineTest, InlinedRegionsHaveShortNamesWithTheirCallSites) {
  const Json report = scan("inlined", {"--reps", "1", "--no-native-runs"}, {"inlined_region"});
  ASSERT_FALSE(report.is_null());
  std::vector<std::string> labels;
  for (const Json* r : parallel_regions(report, "inlined_region.cc")) {
    labels.push_back((*r)["label"]);
    EXPECT_GT((*r)["location"]["line"].get<int>(), 0);
  }
  ASSERT_EQ(labels.size(), 2u);
  std::sort(labels.begin(), labels.end());
  const std::string name =
      "inlined_region.cc:19 (solver::detail::accumulate_hashed<double>, "
      "inlined at inlined_region.cc:";
  if (GetParam() == Compiler::kLlvm) {
    EXPECT_EQ(labels, (std::vector<std::string>{name + "34)", name + "35)"}));
  } else {
    EXPECT_EQ(labels, (std::vector<std::string>{name + "34)", name + "34) (copy 2)"}));
  }
  for (const std::string& label : labels) {
    EXPECT_LE(label.size(), 120u) << label;
    EXPECT_THAT(label, ::testing::Not(HasSubstr("[parallel:")));
    EXPECT_THAT(label, ::testing::Not(HasSubstr("std::vector")));
  }
  // Code inside GCC's outlined region bodies: a function name, not "sum_critical(long) [clone
  // ._omp_fn.0]".
  const Json critical =
      scan("named", {"--reps", "1", "--no-native-runs"}, {"critical_reduction", "1000"});
  ASSERT_FALSE(critical.is_null());
  for (const Json* r : parallel_regions(critical, "critical_reduction.cc")) {
    for (const Json& site : (*r)["locks"]) {
      EXPECT_THAT(site["location"].get<std::string>(), ::testing::Not(HasSubstr("(long)")));
      EXPECT_THAT(site["location"].get<std::string>(), ::testing::Not(HasSubstr("[clone")));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Builds, PipelineTest, ::testing::Values(Compiler::kGnu, Compiler::kLlvm),
                         [](const auto& info) { return compiler_name(info.param); });

}  // namespace
}  // namespace ompscale::regions

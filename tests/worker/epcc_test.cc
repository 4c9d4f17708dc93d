#include "microbench/epcc.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "microbench/catalogue.h"
#include "microbench/constructs/epcc_calibration.h"
#include "microbench/constructs/epcc_cpu_wait.h"
#include "microbench/runtime_info.h"

namespace ompscale::microbench {
namespace {

BatchRequest request_for(const ConstructInfo& construct, int threads, int count, int first_rep) {
  BatchRequest request;
  request.construct = &construct;
  if (!construct.default_values.empty()) request.param_value = construct.default_values.front();
  request.threads = threads;
  request.count = count;
  request.first_rep = first_rep;
  return request;
}

// Median of the valid overheads of a batch of `count` at `threads` threads. When the machine is
// busy with other work the method flags most repetitions as disturbed: retry a few batches and
// return nullopt when none had a majority of valid samples.
std::optional<double> clean_median_overhead(EpccRunner& runner, std::string_view construct,
                                            int threads, int count) {
  for (int attempt = 0; attempt < 5; ++attempt) {
    const BatchResult result =
        runner.run(request_for(*find_construct(construct), threads, count, 0));
    std::vector<double> valid;
    for (const Sample& sample : result.samples)
      if (sample.valid) valid.push_back(sample.value_ns);
    if (2 * valid.size() > result.samples.size()) return epcc::median(valid);
  }
  return std::nullopt;
}

TEST(EpccRunner, EveryEpccConstructYieldsNumberedOverheadsAtOneAndTwoThreads) {
  EpccRunner runner(EpccOptions{.test_time_us = 200});
  constexpr int kCount = 5;
  constexpr int kFirstRep = 10;
  for (const ConstructInfo& construct : catalogue()) {
    if (!construct.epcc) continue;
    const bool hint_missing =
        construct.name.starts_with("lock_hint") && init_lock_with_hint() == nullptr;
    for (int threads : {1, 2}) {
      SCOPED_TRACE(std::string(construct.name) + " at " + std::to_string(threads) + " threads");
      const BatchResult result = runner.run(request_for(construct, threads, kCount, kFirstRep));
      if (hint_missing) {
        EXPECT_EQ(result.unavailable, lock_hint_unavailable_reason());
        EXPECT_FALSE(result.unavailable.empty());
        EXPECT_TRUE(result.samples.empty());
        continue;
      }
      EXPECT_EQ(result.unavailable, "");
      ASSERT_EQ(result.samples.size(), static_cast<std::size_t>(kCount));
      for (int i = 0; i < kCount; ++i) {
        EXPECT_EQ(result.samples[i].metric, "overhead");
        EXPECT_EQ(result.samples[i].rep, kFirstRep + i);
        EXPECT_TRUE(std::isfinite(result.samples[i].value_ns));
      }
    }
  }
}

TEST(EpccRunner, ParallelRegionCostsMoreThanAnAtomicUpdateAtTwoThreads) {
  EpccRunner runner(EpccOptions{.test_time_us = 500});
  const std::optional<double> parallel_ns = clean_median_overhead(runner, "parallel", 2, 15);
  const std::optional<double> atomic_ns = clean_median_overhead(runner, "atomic_update", 2, 15);
  if (!parallel_ns || !atomic_ns) GTEST_SKIP() << "the machine is too busy to measure cleanly";
  // A fork and join crosses cores twice (~1 us here); an atomic add once at most (~60 ns).
  EXPECT_GT(*parallel_ns, 0);
  EXPECT_GT(*parallel_ns, 2 * *atomic_ns)
      << "parallel " << *parallel_ns << " ns, atomic_update " << *atomic_ns << " ns";
}

TEST(EpccRunner, BarrierLateSubtractsTheLateArrivalDelay) {
  // The reference holds the late thread's 2 us delay, so barrier_late costs what a plain barrier
  // costs; without the late delay in the reference it would cost 2 us more. Compared with the
  // plain barrier measured right after it, as a busy other core stretches both alike (one thread
  // keeps the check clear of cross-core stalls). Retried, as timing conditions are.
  EpccRunner runner(EpccOptions{.test_time_us = 500});
  std::optional<double> late_ns;
  std::optional<double> plain_ns;
  for (int attempt = 0; attempt < 5; ++attempt) {
    late_ns = clean_median_overhead(runner, "barrier_late", 1, 9);
    plain_ns = clean_median_overhead(runner, "barrier", 1, 9);
    if (late_ns && plain_ns && std::abs(*late_ns - *plain_ns) < 1000) break;
  }
  if (!late_ns || !plain_ns) GTEST_SKIP() << "the machine is too busy to measure cleanly";
  EXPECT_LT(std::abs(*late_ns - *plain_ns), 1000)
      << "barrier_late " << *late_ns << " ns, barrier " << *plain_ns << " ns";
}

TEST(EpccRunner, RejectsParameterValuesOutOfRange) {
  EpccRunner runner(EpccOptions{.test_time_us = 200});
  BatchRequest request = request_for(*find_construct("copyin"), 2, 3, 0);
  request.param_value = "59050";
  BatchResult result = runner.run(request);
  EXPECT_NE(result.unavailable, "");
  EXPECT_TRUE(result.samples.empty());

  request = request_for(*find_construct("for_dynamic_monotonic"), 2, 3, 0);
  request.param_value = "0";
  result = runner.run(request);
  EXPECT_NE(result.unavailable, "");
  EXPECT_TRUE(result.samples.empty());

  request.param_value = "16x";
  EXPECT_NE(runner.run(request).unavailable, "");
}

TEST(EpccMedian, OddAndEvenCounts) {
  EXPECT_EQ(epcc::median({}), 0);
  EXPECT_EQ(epcc::median({3, 1, 2}), 2);
  EXPECT_EQ(epcc::median({4, 1, 3, 2}), 2.5);
}

// A fake test run: `seconds_per_rep` per repetition, plus `preemption` seconds on the calls whose
// index (0-based) is in `preempted_calls`. Records the largest inner count asked for.
struct FakeTest {
  double seconds_per_rep = 1e-6;
  std::vector<int> preempted_calls;
  double preemption = 5e-3;
  int calls = 0;
  long largest_inner = 0;

  double operator()(long inner) {
    largest_inner = std::max(largest_inner, inner);
    double seconds = inner * seconds_per_rep;
    for (int call : preempted_calls)
      if (call == calls) seconds += preemption;
    ++calls;
    return seconds;
  }
};

TEST(EpccInnerReps, CountFillsTheTargetTime) {
  FakeTest fake;
  EXPECT_EQ(epcc::calibrate_inner_reps(std::ref(fake), 1e-3, 5, 1), 1000);
  // Probes reach a quarter of the target: 256 repetitions of 1 us.
  EXPECT_EQ(fake.largest_inner, 256);
}

TEST(EpccInnerReps, OnePreemptedProbeDoesNotShrinkTheCount) {
  // Growth takes 2 calls per size for sizes 1..256 (18 calls); call 20 is the third probe.
  FakeTest fake{.preempted_calls = {20}};
  EXPECT_EQ(epcc::calibrate_inner_reps(std::ref(fake), 1e-3, 5, 1), 1000);
  EXPECT_EQ(fake.calls, 18 + 5);
}

TEST(EpccInnerReps, OnePreemptedGrowthRunDoesNotStopTheGrowth) {
  // Call 4 is the first run at size 4: a single probe of EPCC's doubling would stop there and
  // keep a count of 8.
  FakeTest fake{.preempted_calls = {4}};
  EXPECT_EQ(epcc::calibrate_inner_reps(std::ref(fake), 1e-3, 5, 1), 1000);
  EXPECT_EQ(fake.largest_inner, 256);
}

TEST(EpccInnerReps, CountIsAMultipleOfTheKernelsGranularity) {
  FakeTest fake;
  const long inner = epcc::calibrate_inner_reps(std::ref(fake), 1e-3, 5, 64);
  EXPECT_EQ(inner % 64, 0);
  EXPECT_EQ(inner, 1024);  // 1000 rounded to the nearest multiple of 64
  FakeTest slow;
  slow.seconds_per_rep = 1.0;
  EXPECT_EQ(epcc::calibrate_inner_reps(std::ref(slow), 1e-3, 5, 6), 6);
}

TEST(EpccDelayLength, ReachesTheTargetDespiteOneDisturbedTiming) {
  // 1 ns per iteration plus a 5 ns call. The steps run 64, 71, 79, 87, 96: one disturbed timing
  // of length 87 (92 ns undisturbed) would end a single-timing search there.
  bool disturbed_once = false;
  const auto seconds_per_delay = [&disturbed_once](int length) {
    const bool disturbed = length == 87 && !disturbed_once;
    disturbed_once = disturbed_once || disturbed;
    return (5 + length) * 1e-9 + (disturbed ? 1e-6 : 0);
  };
  const int length = epcc::calibrate_delay_length(seconds_per_delay, 100e-9, 5);
  EXPECT_TRUE(disturbed_once);
  EXPECT_GE(length, 95);   // 100 ns or more
  EXPECT_LE(length, 105);  // within one 10% step of the target
  EXPECT_EQ(epcc::calibrate_delay_length(seconds_per_delay, 0, 5), 0);
}

TEST(EpccDisturbedReps, FlagsWaitsForACpuShortTestsAndOutliers) {
  const auto rep = [](double reference, double test, double cpu_wait, double test_to_target) {
    return epcc::OuterRep{.reference_seconds = reference,
                          .test_seconds = test,
                          .cpu_wait_fraction = cpu_wait,
                          .test_to_target = test_to_target};
  };
  const std::vector<epcc::OuterRep> reps = {
      rep(100, 200, 0, 1.0),   rep(102, 210, 0.005, 1.1),  // normal; a short wait
      rep(99, 190, 0, 0.9),    rep(101, 1000, 0, 4.8),     // normal; test far above median
      rep(900, 200, 0, 1.0),   rep(100, 230, 0, 0.3),      // reference far above median; ok
      rep(100, 205, 0.2, 1.0), rep(101, 204, 0.011, 1.0),  // waited for a CPU
      rep(100, 205, 0, 0.2),                               // test too short for its target
  };
  EXPECT_EQ(epcc::disturbed_reps(reps),
            (std::vector<bool>{false, false, false, true, true, false, true, true, true}));
}

TEST(EpccCpuWait, CountsTimeSpentRunnableButNotRunning) {
  // This thread and a spinner share one CPU for 50 ms, so together they wait about that long.
  cpu_set_t original;
  ASSERT_EQ(sched_getaffinity(0, sizeof original, &original), 0);
  int cpu = 0;
  while (!CPU_ISSET(cpu, &original)) ++cpu;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  const double before = epcc::cpu_wait_seconds();
  std::atomic<bool> stop{false};
  std::thread spinner([&stop] {
    while (!stop.load(std::memory_order_relaxed)) {
    }
  });
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - start < std::chrono::milliseconds(50)) {
  }
  // Read while the spinner lives: an exited thread's waits leave the sum.
  const double waited = epcc::cpu_wait_seconds() - before;
  stop = true;
  spinner.join();
  ASSERT_EQ(sched_setaffinity(0, sizeof original, &original), 0);
  EXPECT_GT(waited, 0.010);
}

}  // namespace
}  // namespace ompscale::microbench

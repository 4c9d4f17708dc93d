// The OMPT tool's pure parts, tested in-process: the samplers (regions/ompt/sampling.h),
// the barrier phase arithmetic (barrier_phases.h) and the lock record encoding (record.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "regions/ompt/barrier_phases.h"
#include "regions/ompt/loop_schedule.h"
#include "regions/ompt/record.h"
#include "regions/ompt/sampling.h"

namespace ompscale::regions::ompt {
namespace {

// Executions enough that the precision bound allows any period (the cost rule alone decides).
constexpr std::uint64_t kMany = std::uint64_t{1} << 62;

// Regions are sampled by what measuring costs against their own time, not by
// their execution count.
TEST(ToolSampling, RegionsMuchLongerThanTheCostOfMeasuringAreMeasuredInFull) {
  const RegionSampling sampling;                               // 250 ns per thread, 1% budget
  EXPECT_EQ(sampling.log2_period(0, 2, kMany, 1.0), 0u);       // nothing measured yet: measure
  EXPECT_EQ(sampling.log2_period(50'000, 2, kMany, 1.0), 0u);  // 0.5 us of 50 us = 1%
  EXPECT_EQ(sampling.log2_period(2e6, 64, kMany, 1.0), 0u);  // 16 us of a 2 ms region of 64 threads
}

TEST(ToolSampling, ShortRegionsAreSampledSoMeasuringStaysWithinTheBudget) {
  const RegionSampling sampling;
  // 2 us executions of 2 threads: 0.5 us to measure, 25 times the 1% budget -> 1 in 32.
  EXPECT_EQ(sampling.log2_period(2'000, 2, kMany, 1.0), 5u);
  EXPECT_EQ(sampling.log2_period(25'000, 2, kMany, 1.0), 1u);
  for (double mean : {100.0, 1'000.0, 10'000.0, 40'000.0}) {
    const unsigned k = sampling.log2_period(mean, 2, kMany, 1.0);
    EXPECT_LE(500.0 / std::ldexp(1.0, static_cast<int>(k)), 0.01 * mean + 1e-9) << mean;
    EXPECT_GT(500.0 / std::ldexp(1.0, static_cast<int>(k) - 1), 0.01 * mean) << mean;
  }
  EXPECT_EQ(sampling.log2_period(1.0, 2, kMany, 1.0), sampling.max_log2_period);
  RegionSampling all = sampling;
  all.all = true;
  EXPECT_EQ(all.log2_period(1.0, 2, kMany, 1.0), 0u);
}

// The precision target bounds the error of the split of a region's time into work and the rest
// (its wall time is summed over every execution, sampled or not): the ratio estimate's standard
// error, relative to the region's time, sqrt((2^k - 1) / n * m2) stays within the target, where
// m2 is the second moment of the idle time's departure from its average share of the wall time
// over the squared mean wall time.
TEST(ToolSampling, SamplingIsNoSparserThanTheSplitsPrecisionAllows) {
  const RegionSampling sampling;  // 2.5% relative standard error
  // 2 us executions: the cost rule alone gives 1 in 32.
  EXPECT_EQ(sampling.log2_period(2'000, 2, 700, 1e-4), 5u);       // a steady split: cost decides
  EXPECT_EQ(sampling.log2_period(2'000, 2, 700, 0.1), 2u);        // a varied split: denser
  EXPECT_EQ(sampling.log2_period(2'000, 2, 700, 1.0), 0u);        // idle as varied as the whole
  EXPECT_EQ(sampling.log2_period(2'000, 2, 1'000'000, 1.0), 5u);  // many: cost decides
  EXPECT_EQ(sampling.log2_period(2'000, 2, 700, 0.0), 5u);        // a split that never varied
  EXPECT_LT(sampling.log2_period(2'000, 2, 10'000, 3.0),
            sampling.log2_period(2'000, 2, 10'000, 0.3));
  for (std::uint64_t n : {100ull, 10'000ull, 1'000'000ull}) {
    for (double m2 : {1e-3, 0.1, 3.0}) {
      const unsigned k = sampling.precise_log2_period(n, m2);
      const double error = std::sqrt((std::ldexp(1.0, static_cast<int>(k)) - 1) / n * m2);
      EXPECT_LE(error, sampling.relative_error + 1e-12) << n << " " << m2;
    }
  }
}

// Executions whose sizes differ tenfold in a cycle (LULESH's equation-of-state regions, once per
// material region) with a steady share of idle time. Drawn 1 in 2 many times over: calibrated to
// the exact total wall time, the idle estimate varies far less than its Horvitz-Thompson
// estimate, and SplitSums::variance() predicts how much it varies (w (w - 1) = 2 per measured
// execution; w^2 would predict 41% more).
TEST(ToolSampling, CalibratingToTheExactTotalLeavesOnlyTheSplitUncertain) {
  constexpr int kExecutions = 3'000;
  constexpr std::uint64_t kWeight = 2;
  std::vector<double> x(kExecutions), y(kExecutions);
  double exact_x = 0;
  std::uint64_t noise = 12345;
  for (int i = 0; i < kExecutions; ++i) {
    x[i] = (i % 11 == 0 ? 30.0 : 1.0) * 1000.0;
    noise = noise * 6364136223846793005ull + 1442695040888963407ull;
    const double jitter = static_cast<double>(noise >> 11) / 9007199254740992.0 - 0.5;  // +-0.5
    y[i] = x[i] * (0.2 + 0.05 * jitter);
    exact_x += x[i];
  }
  double exact_y = 0;
  for (double v : y) exact_y += v;
  std::vector<double> calibrated, horvitz_thompson, predicted;
  std::uint64_t draw = 99;
  for (int trial = 0; trial < 400; ++trial) {
    SplitSums sums;
    for (int i = 0; i < kExecutions; ++i) {
      draw = draw * 6364136223846793005ull + 1442695040888963407ull;
      if ((draw >> 63) == 0) sums.add(kWeight, x[i], y[i]);  // 1 in 2
    }
    const double factor = exact_x / sums.wall;
    calibrated.push_back(sums.idle * factor);
    horvitz_thompson.push_back(sums.idle);
    predicted.push_back(std::sqrt(sums.variance(factor)));
  }
  const auto spread = [&](const std::vector<double>& v) {
    double sum = 0, squares = 0;
    for (double e : v) {
      sum += e - exact_y;
      squares += (e - exact_y) * (e - exact_y);
    }
    EXPECT_LT(std::fabs(sum / static_cast<double>(v.size())), 0.01 * exact_y);  // unbiased
    return std::sqrt(squares / static_cast<double>(v.size()));
  };
  const double calibrated_error = spread(calibrated);
  const double horvitz_thompson_error = spread(horvitz_thompson);
  std::sort(predicted.begin(), predicted.end());
  const double predicted_error = predicted[predicted.size() / 2];
  EXPECT_LT(calibrated_error, horvitz_thompson_error / 10);
  EXPECT_NEAR(predicted_error, calibrated_error, 0.15 * calibrated_error);
}

TEST(ToolSampling, APeriodMeasuresItsShareEvenlySpread) {
  for (unsigned k : {1u, 3u, 5u, 10u}) {
    const std::uint64_t period = 1ull << k;
    for (std::uint64_t start : {0ull, 1000ull, 1ull << 30}) {
      std::uint64_t measured = 0;
      for (std::uint64_t n = start; n < start + 64 * period; ++n) {
        measured += measure_execution(n, k) ? 1 : 0;
      }
      EXPECT_GE(measured, 61u) << k << " from " << start;
      EXPECT_LE(measured, 67u) << k << " from " << start;
    }
  }
  for (std::uint64_t n : {0ull, 7ull, 1ull << 40}) EXPECT_TRUE(measure_execution(n, 0));
}

TEST(ToolSampling, DoesNotAliasWithAlternatingExecutions) {
  // A program alternating two behaviours must see both: a strided pick (every 2^k-th) would
  // measure only one of them.
  std::uint64_t even = 0, odd = 0;
  for (std::uint64_t n = 0; n < (1u << 20); ++n) {
    if (!measure_execution(n, 6)) continue;
    (n % 2 == 0 ? even : odd) += 1;
  }
  EXPECT_GT(even, (even + odd) / 3);
  EXPECT_GT(odd, (even + odd) / 3);
}

// The code clang 14 emits before __kmpc_dispatch_init (objdump of
// tests/apps/llvm/several_loops and mandelbrot): the sched_type in edx, the chunk on the stack.
TEST(ToolLoopSchedule, DispatchedLoopsScheduleAndChunkAreReadFromTheCall) {
  const unsigned char dynamic64[] = {
      0x41, 0xb9, 0x01, 0x00, 0x00, 0x00,  // mov $0x1,%r9d
      0x48, 0x89, 0xdf,                    // mov %rbx,%rdi
      0x44, 0x89, 0xfe,                    // mov %r15d,%esi
      0xba, 0x23, 0x00, 0x00, 0x40,        // mov $0x40000023,%edx: dynamic, nonmonotonic
      0x31, 0xc9,                          // xor %ecx,%ecx
      0x6a, 0x40};                         // push $0x40: chunk 64
  const LoopSchedule a = decode_dispatch(dynamic64, sizeof(dynamic64));
  EXPECT_STREQ(a.schedule, "dynamic");
  EXPECT_EQ(a.chunk, 64u);
  const unsigned char runtime1[] = {0xc7, 0x04, 0x24, 0x01, 0x00, 0x00, 0x00,  // movl $0x1,(%rsp)
                                    0x4c, 0x89, 0xf7,                          // mov %r14,%rdi
                                    0x89, 0xee,                                // mov %ebp,%esi
                                    0xba, 0x25, 0x00, 0x00, 0x40,  // mov $0x40000025,%edx: runtime
                                    0x31, 0xc9,                    // xor %ecx,%ecx
                                    0x41, 0xb9, 0x01, 0x00, 0x00, 0x00};  // mov $0x1,%r9d
  const LoopSchedule b = decode_dispatch(runtime1, sizeof(runtime1));
  EXPECT_STREQ(b.schedule, "runtime");
  EXPECT_EQ(b.chunk, 0u);  // a runtime schedule's chunk is OMP_SCHEDULE's
  const unsigned char dynamic4096[] = {0x48, 0xc7, 0x04, 0x24, 0x00, 0x10,
                                       0x00, 0x00,  // movq $0x1000,(%rsp): before edx
                                       0x41, 0xb9, 0x01, 0x00, 0x00, 0x00,  // mov $0x1,%r9d
                                       0xba, 0x23, 0x00, 0x00, 0x40,        // mov $0x40000023,%edx
                                       0x31, 0xc9};                         // xor %ecx,%ecx
  const LoopSchedule c = decode_dispatch(dynamic4096, sizeof(dynamic4096));
  EXPECT_STREQ(c.schedule, "dynamic");
  EXPECT_EQ(c.chunk, 4096u);
  const unsigned char unknown[] = {0xba, 0x07, 0x00, 0x00, 0x00, 0x31, 0xc9};  // edx = 7
  EXPECT_STREQ(decode_dispatch(unknown, sizeof(unknown)).schedule, "dispatch");
  EXPECT_STREQ(sched_type_name(0x20000024), "guided");  // monotonic guided
  EXPECT_STREQ(sched_type_name(34), "static");
  EXPECT_EQ(sched_type_name(7), nullptr);
}

TEST(ToolRecord, RegionFieldCarriesTheIdAndTheWeight) {
  for (std::uint32_t id : {0u, 1u, 4095u, 0x00fffffeu}) {
    for (unsigned k : {0u, 1u, 5u, 16u, 63u}) {
      const std::uint32_t field = record_region(id, k);
      EXPECT_EQ(region_id_of(field), id);
      EXPECT_EQ(weight_of(field), 1ull << k);
    }
  }
}

TEST(ToolSampling, LockTimingRateIsCapped) {
  EXPECT_EQ(kLockSampler.log2_period(~0ull >> 1), kLockSampler.max_log2_period);
  const std::uint64_t start = 1u << 22, count = 1u << 20;
  std::uint64_t timed = 0;
  for (std::uint64_t n = start; n < start + count; ++n) timed += kLockSampler.measure(n);
  const double rate = static_cast<double>(timed) / count;
  EXPECT_NEAR(rate, 1.0 / 256, 0.0005);
}

// The acquisitions timed by chaining next_after() from 0, below `count`.
std::vector<std::uint64_t> timed_below(const AdaptiveSampler& sampler, std::uint64_t count) {
  std::vector<std::uint64_t> timed;
  for (std::uint64_t n = 0; n < count; n = sampler.next_after(n)) timed.push_back(n);
  return timed;
}

TEST(ToolSampling, CountdownTimesEveryEarlyAcquisition) {
  const std::vector<std::uint64_t> timed = timed_below(kLockSampler, kLockSampler.always_first);
  ASSERT_EQ(timed.size(), kLockSampler.always_first);
  for (std::uint64_t n = 0; n < timed.size(); ++n) EXPECT_EQ(timed[n], n);
}

TEST(ToolSampling, CountdownRateFollowsThePeriod) {
  const std::vector<std::uint64_t> timed = timed_below(kLockSampler, 1u << 24);
  // Past the ramp (one in 256 from 256 * 2^7 on), the rate is one in 256.
  const std::uint64_t from = 1u << 20;
  const auto steady = static_cast<double>(
      std::count_if(timed.begin(), timed.end(), [&](std::uint64_t n) { return n >= from; }));
  EXPECT_NEAR(steady / static_cast<double>((1u << 24) - from), 1.0 / 256, 0.0003);
  // The ramp: 256, then about 128 per doubling until the cap (gaps of 0.5 to 1.5 periods
  // average a little under one period).
  const auto ramp = static_cast<double>(
      std::count_if(timed.begin(), timed.end(), [](std::uint64_t n) { return n < 32768; }));
  EXPECT_GT(ramp, 256 + 128 * 7 - 40);
  EXPECT_LT(ramp, 256 + 128 * 7 + 160);
}

TEST(ToolSampling, CountdownDoesNotAliasWithAlternatingLockSites) {
  std::uint64_t even = 0, odd = 0;
  for (std::uint64_t n : timed_below(kLockSampler, 1u << 22)) (n % 2 == 0 ? even : odd) += 1;
  EXPECT_GT(even, (even + odd) / 3);
  EXPECT_GT(odd, (even + odd) / 3);
}

TEST(ToolSampling, MeasureAllMeasuresEverything) {
  for (std::uint64_t n : {0ull, 1ull, 63ull, 64ull, 1ull << 20, 1ull << 40, ~0ull - 1}) {
    EXPECT_TRUE(kMeasureAll.measure(n)) << n;
    EXPECT_EQ(kMeasureAll.next_after(n), n + 1) << n;
  }
}

TEST(ToolBarrierPhases, PhasesAddUpToTheTimeInTheBarrier) {
  // arrival 100, last arrival 150, first departure 160, own departure 175.
  const BarrierPhases phases = barrier_phases(100, 175, 150, 160, 0);
  EXPECT_EQ(phases.imbalance, 50u);
  EXPECT_EQ(phases.walkthrough, 10u);
  EXPECT_EQ(phases.startup, 15u);
  EXPECT_EQ(phases.imbalance + phases.walkthrough + phases.startup, 175u - 100u);
}

TEST(ToolBarrierPhases, LastArriverHasNoImbalanceFirstDeparterNoStartup) {
  const BarrierPhases phases = barrier_phases(150, 160, 150, 160, 0);
  EXPECT_EQ(phases.imbalance, 0u);
  EXPECT_EQ(phases.walkthrough, 10u);
  EXPECT_EQ(phases.startup, 0u);
}

TEST(ToolBarrierPhases, TasksRunWhileWaitingAreNotImbalance) {
  EXPECT_EQ(barrier_phases(100, 175, 150, 160, 30).imbalance, 20u);
  EXPECT_EQ(barrier_phases(100, 175, 150, 160, 80).imbalance, 0u);
}

// One thread made the tasks and every thread arrived early; the tasks ran at
// the barrier after the last arrival. That time is task work and waiting for the last tasks to
// end, not the barrier algorithm (before, walkthrough was first departure - last arrival: 170).
TEST(ToolBarrierPhases, TasksRunAfterTheLastArrivalAreNotWalkthrough) {
  // arrival 100, last arrival 120, last task ended 280, first departure 290, own departure 300;
  // this thread ran 150 ticks of tasks.
  const BarrierPhases phases = barrier_phases(100, 300, 120, 290, 150, 280);
  EXPECT_EQ(phases.imbalance, 0u);     // it ran tasks while waiting for the last arrival
  EXPECT_EQ(phases.task_wait, 30u);    // 160 ticks to the last task's end, 130 of them running
  EXPECT_EQ(phases.walkthrough, 10u);  // last task end -> first departure
  EXPECT_EQ(phases.startup, 10u);
  EXPECT_EQ(phases.imbalance + phases.task_wait + phases.walkthrough + phases.startup + 150u,
            300u - 100u);
}

TEST(ToolBarrierPhases, ThreadThatRanNoTaskWaitsForTheOthersTasks) {
  const BarrierPhases phases = barrier_phases(100, 300, 120, 290, 0, 280);
  EXPECT_EQ(phases.imbalance, 20u);
  EXPECT_EQ(phases.task_wait, 160u);
  EXPECT_EQ(phases.walkthrough, 10u);
  // A task end stamped after the first departure (another core's clock) is the departure.
  EXPECT_EQ(barrier_phases(100, 300, 120, 290, 0, 295).walkthrough, 0u);
  EXPECT_EQ(barrier_phases(100, 300, 120, 290, 0, 295).task_wait, 170u);
}

TEST(ToolBarrierPhases, StampsOfOtherCoresSlightlyOutOfOrderGiveZeroNotWraparound) {
  // The first departure read a few ticks before the last arrival (clock skew between cores).
  const BarrierPhases phases = barrier_phases(100, 158, 160, 157, 0);
  EXPECT_EQ(phases.walkthrough, 0u);
  EXPECT_EQ(phases.startup, 1u);
  EXPECT_EQ(ticks_between(10, 5), 0u);
  EXPECT_EQ(ticks_between(5, 10), 5u);
}

TEST(ToolRecord, LockWaitFieldCarriesWaitAndWeight) {
  for (std::uint64_t wait : {0ull, 1ull, 123456789ull, (1ull << 48) - 1}) {
    for (std::uint64_t weight : {1ull, 2ull, 96ull, 255ull, 384ull, 0xFFFFull}) {
      const std::uint64_t b = lock_wait_field(wait, weight);
      EXPECT_EQ(lock_wait_ticks(b), wait);
      EXPECT_EQ(lock_weight(b), weight);
    }
  }
  EXPECT_EQ(lock_weight(lock_wait_field(5, 100000)), kMaxLockWeight);
}

TEST(ToolRecord, LockWeightsOfTheCountdownAddUpToTheAcquisitions) {
  // Each timed acquisition stands for the gap to the next: the weights cover every acquisition
  // once, and the largest gap fits the record.
  std::uint64_t covered = 0, largest = 0;
  std::uint64_t n = 0;
  for (; n < (1u << 22); n = kLockSampler.next_after(n)) {
    const std::uint64_t weight = kLockSampler.next_after(n) - n;
    covered += weight;
    largest = std::max(largest, weight);
  }
  EXPECT_EQ(covered, n);
  EXPECT_LE(largest, kMaxLockWeight);
}

}  // namespace
}  // namespace ompscale::regions::ompt

#include "sync/clock.h"

#include <gtest/gtest.h>
#include <time.h>

#include <cstdint>

namespace ompscale::sync {
namespace {

std::uint64_t raw_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

TEST(Clock, ReadsNeverGoBackwards) {
  std::uint64_t previous = ticks();
  int backwards = 0;
  for (int i = 0; i < 200000; ++i) {
    const std::uint64_t now = ticks();
    if (now < previous) ++backwards;
    previous = now;
  }
  EXPECT_EQ(backwards, 0);
}

TEST(Clock, UsesTheTscWhenItIsInvariant) {
  const ClockInfo& info = clock_info();
  EXPECT_EQ(info.source == ClockSource::kTsc, info.tsc_invariant);
  EXPECT_EQ(detail::use_tsc, info.source == ClockSource::kTsc);
  EXPECT_DOUBLE_EQ(detail::ns_per_tick, 1e9 / info.ticks_per_second);
}

// A (ticks, CLOCK_MONOTONIC_RAW ns) pair read back to back, retried until no interruption fell
// between the reads.
struct Pair {
  std::uint64_t ticks;
  std::uint64_t raw;
};

Pair read_pair() {
  Pair pair{};
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::uint64_t before = ticks();
    pair.raw = raw_ns();
    pair.ticks = ticks();
    if (ticks_to_ns(static_cast<double>(pair.ticks - before)) < 5000) break;
  }
  return pair;
}

TEST(Clock, TscFrequencyAgreesWithMonotonicRaw) {
  if (clock_info().source != ClockSource::kTsc) GTEST_SKIP() << "no invariant TSC";
  const Pair start = read_pair();
  const timespec nap{0, 50000000};
  nanosleep(&nap, nullptr);
  const Pair end = read_pair();
  const double ratio = ticks_to_ns(static_cast<double>(end.ticks - start.ticks)) /
                       static_cast<double>(end.raw - start.raw);
  EXPECT_NEAR(ratio, 1.0, 1e-3);
}

TEST(Clock, StepAndReadCostArePlausible) {
  const ClockInfo& info = clock_info();
  EXPECT_GT(info.step_ns, 0);
  EXPECT_LT(info.step_ns, 1000);
  EXPECT_GT(info.read_cost_ns, 0);
  EXPECT_LT(info.read_cost_ns, 1000);
  // A read cannot cost less than the smallest interval two back-to-back reads can show, up to the
  // step's own quantisation.
  EXPECT_GE(info.read_cost_ns * 2, info.step_ns);
}

TEST(Clock, FallsBackToMonotonicRawWhenTscIsNotAllowed) {
  ClockOptions options;
  options.allow_tsc = false;
  const ClockInfo info = calibrate_clock(options);
  EXPECT_EQ(info.source, ClockSource::kMonotonicRaw);
  EXPECT_DOUBLE_EQ(info.ticks_per_second, 1e9);
  EXPECT_GT(info.step_ns, 0);
  EXPECT_LT(info.step_ns, 1000);
  EXPECT_GT(info.read_cost_ns, 0);
  EXPECT_LT(info.read_cost_ns, 1000);
  EXPECT_STREQ(to_string(info.source), "monotonic_raw");
}

TEST(Clock, TakesAKnownFrequencyWithoutCalibratingOrCheckingAgain) {
#if !defined(__x86_64__) && !defined(__i386__)
  GTEST_SKIP() << "no TSC";
#endif
  ClockOptions options;
  options.known_ticks_per_second = 1.234e9;
  const ClockInfo info = calibrate_clock(options);
  EXPECT_TRUE(info.tsc_invariant);  // vouched for by whoever measured the frequency
  EXPECT_EQ(info.source, ClockSource::kTsc);
  EXPECT_DOUBLE_EQ(info.ticks_per_second, 1.234e9);
  EXPECT_STREQ(to_string(info.source), "tsc");
}

TEST(Clock, ResolutionIsLeftUnmeasuredWhenNotAsked) {
  for (const bool allow_tsc : {true, false}) {
    ClockOptions options;
    options.allow_tsc = allow_tsc;
    options.known_ticks_per_second = 2e9;
    options.measure_resolution = false;
    const ClockInfo info = calibrate_clock(options);
    EXPECT_EQ(info.step_ns, 0);
    EXPECT_EQ(info.read_cost_ns, 0);
    EXPECT_GT(info.ticks_per_second, 0);
  }
}
TEST(Clock, CalibrationsAgreeWithEachOther) {
  if (clock_info().source != ClockSource::kTsc) GTEST_SKIP() << "no invariant TSC";
  const ClockInfo again = calibrate_clock();
  EXPECT_NEAR(again.ticks_per_second / clock_info().ticks_per_second, 1.0, 1e-4);
}

TEST(Clock, FirstInitWins) {
  const ClockInfo& first = clock_info();
  const ClockSource source = first.source;
  const double frequency = first.ticks_per_second;
  ClockOptions other;
  other.allow_tsc = source != ClockSource::kTsc;
  other.known_ticks_per_second = 3e9;
  const ClockInfo& again = init_clock(other);
  EXPECT_EQ(&again, &first);
  EXPECT_EQ(again.source, source);
  EXPECT_DOUBLE_EQ(again.ticks_per_second, frequency);
}

TEST(Clock, ConvertsBetweenTicksAndNanoseconds) {
  EXPECT_NEAR(ticks_to_ns(ns_to_ticks(12345.0)), 12345.0, 1e-6);
  EXPECT_NEAR(ticks_to_ns(clock_info().ticks_per_second), 1e9, 1e-3);
}

TEST(LocalClock, AddsItsSkew) {
  for (const double skew_ns : {1e6, -1e6, 0.0}) {
    const LocalClock skewed{static_cast<std::int64_t>(ns_to_ticks(skew_ns))};
    const LocalClock plain;
    // The skewed read happens between the two plain reads, so without its skew it lies between
    // them, however long the reads take.
    const std::uint64_t before = plain.now();
    const std::uint64_t read = skewed.now();
    const std::uint64_t after = plain.now();
    const std::uint64_t unskewed = read - static_cast<std::uint64_t>(skewed.skew_ticks);
    EXPECT_LE(before, unskewed);
    EXPECT_LE(unskewed, after);
  }
}

}  // namespace
}  // namespace ompscale::sync

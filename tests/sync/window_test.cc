#include "sync/window.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <thread>
#include <vector>

#include "sync/canary.h"
#include "sync/offsets.h"
#include "tests/sync/team.h"

namespace ompscale::sync {
namespace {

// A team with injected skews, calibrated once per test.
class Team {
 public:
  Team(int threads, const std::vector<double>& skews_ns, bool bound = true,
       const CalibrationOptions& calibration = {})
      : threads_(threads), bound_(bound), clocks_(testing::skewed_clocks(threads, skews_ns)) {
    OffsetCalibrator calibrator(threads, calibration);
    run([&](int tid) { calibrator.participate(tid, clock(tid)); });
    estimates_ = calibrator.estimates();
  }

  void run(const std::function<void(int)>& body) const {
    testing::run_team(threads_, body, bound_);
  }
  const LocalClock& clock(int tid) const { return clocks_[static_cast<std::size_t>(tid)]; }
  OffsetTable table() const { return OffsetTable(estimates_); }
  const std::vector<OffsetEstimate>& estimates() const { return estimates_; }

 private:
  int threads_;
  bool bound_;
  std::vector<LocalClock> clocks_;
  std::vector<OffsetEstimate> estimates_;
};

void pilot(const Team& team, WindowRelease& window) {
  team.run([&](int tid) { window.pilot(tid, team.clock(tid)); });
}

// Runs `rounds` rounds; `before(tid, round)` runs before wait_release, `between(tid, round)` after
// the release (the "construct"). Returns the master's outcomes, and thread 1's release stamps in
// `stamps_of_thread_1` when given.
std::vector<RoundOutcome> run_rounds(
    const Team& team, WindowRelease& window, int rounds,
    const std::function<void(int, int)>& before = [](int, int) {},
    const std::function<void(int, int)>& between = [](int, int) {},
    std::vector<ReleaseStamp>* stamps_of_thread_1 = nullptr) {
  std::vector<RoundOutcome> outcomes(static_cast<std::size_t>(rounds));
  if (stamps_of_thread_1 != nullptr) stamps_of_thread_1->resize(static_cast<std::size_t>(rounds));
  team.run([&](int tid) {
    const LocalClock& clock = team.clock(tid);
    for (int r = 0; r < rounds; ++r) {
      before(tid, r);
      const ReleaseStamp stamp = window.wait_release(tid, clock);
      between(tid, r);
      window.finish(tid, clock.now());
      if (tid == 1 && stamps_of_thread_1 != nullptr) {
        (*stamps_of_thread_1)[static_cast<std::size_t>(r)] = stamp;
      }
      if (tid == 0) outcomes[static_cast<std::size_t>(r)] = window.outcome();
    }
  });
  return outcomes;
}

void sleep_ns(double ns) {
  std::this_thread::sleep_for(std::chrono::nanoseconds(std::lround(ns)));
}

TEST(WindowRelease, ReleasesASkewedPairTogether) {
  const Team team(2, {0, 1e6});
  WindowRelease window(2, team.table());
  constexpr int kBatch = 20, kBatches = 10;
  std::vector<RoundOutcome> outcomes(kBatch * kBatches);
  std::vector<double> windows;
  team.run([&](int tid) {
    const LocalClock& clock = team.clock(tid);
    window.pilot(tid, clock);
    for (int b = 0; b < kBatches; ++b) {
      int late = 0;
      for (int r = 0; r < kBatch; ++r) {
        window.wait_release(tid, clock);
        window.finish(tid, clock.now());
        if (tid != 0) continue;
        outcomes[static_cast<std::size_t>(b * kBatch + r)] = window.outcome();
        late += window.outcome().late ? 1 : 0;
      }
      // Only the master adapts the window; the others never read it.
      if (tid == 0) {
        window.end_batch(kBatch, late);
        windows.push_back(window.window_ns());
      }
    }
  });

  const auto valid = std::count_if(outcomes.begin(), outcomes.end(),
                                   [](const RoundOutcome& o) { return o.valid(); });
  EXPECT_GE(valid, kBatch * kBatches * 3 / 4);
  std::vector<double> skews;
  for (const RoundOutcome& o : outcomes) skews.push_back(o.release_skew_ns);
  std::nth_element(skews.begin(), skews.begin() + skews.size() / 2, skews.end());
  EXPECT_LT(skews[skews.size() / 2], 5000);
  EXPECT_GT(window.pilot_latency_ns(), 0);
  for (const double w : windows) {
    EXPECT_GE(w, window.pilot_latency_ns());
    EXPECT_LE(w, WindowOptions{}.max_window_ns);
  }
  // Rounds start in order.
  for (std::size_t r = 1; r < outcomes.size(); ++r) {
    EXPECT_GT(outcomes[r].start, outcomes[r - 1].start);
  }
}

TEST(WindowRelease, PilotSizesTheWindowFromPublicationLatency) {
  const Team team(2, {0, -2e5});
  WindowRelease window(2, team.table());
  EXPECT_DOUBLE_EQ(window.window_ns(), WindowOptions{}.pilot_window_ns);
  pilot(team, window);
  const OffsetTable table = team.table();
  EXPECT_GT(window.pilot_latency_ns(), 0);
  EXPECT_GT(table.min_round_trip_ns(), 0);
  EXPECT_NEAR(window.window_ns(),
              std::min(WindowOptions{}.max_window_ns,
                       window.pilot_latency_ns() + table.min_round_trip_ns()),
              1e-6);
}

TEST(WindowRelease, AThreadArrivingAfterTheStartMakesTheRoundLate) {
  const Team team(2, {0, 1e6});
  WindowRelease window(2, team.table());
  pilot(team, window);
  // Well past the window, whatever size the pilot chose on a busy machine.
  const double sleep = std::max(1e6, 2 * window.window_ns());
  constexpr int kLateRound = 5;
  std::vector<ReleaseStamp> stamps;
  const std::vector<RoundOutcome> outcomes = run_rounds(
      team, window, 10,
      [&](int tid, int round) {
        if (tid == 1 && round == kLateRound) sleep_ns(sleep);
      },
      [](int, int) {}, &stamps);
  EXPECT_TRUE(outcomes[kLateRound].late);
  EXPECT_FALSE(outcomes[kLateRound].valid());
  EXPECT_TRUE(stamps[kLateRound].late);
  // The late thread left after the start, so the round's releases spread.
  EXPECT_GT(stamps[kLateRound].release, outcomes[kLateRound].start);
  EXPECT_GT(outcomes[kLateRound].release_skew_ns, 0);
}

TEST(WindowRelease, AThreadStallingAfterTheReleaseMakesTheRoundOverrun) {
  const Team team(2, {0, 1e6});
  WindowOptions options;
  options.slot_ns = 100000;
  WindowRelease window(2, team.table(), options);
  pilot(team, window);
  constexpr int kStallRound = 5;
  const std::vector<RoundOutcome> outcomes = run_rounds(
      team, window, 10, [](int, int) {},
      [](int tid, int round) {
        if (tid == 1 && round == kStallRound) sleep_ns(1e6);
      });
  EXPECT_TRUE(outcomes[kStallRound].overrun);
  EXPECT_FALSE(outcomes[kStallRound].valid());
}

TEST(WindowRelease, DerivedSlotCatchesAStallAmongShortRounds) {
  const Team team(2, {0, 1e6});
  WindowOptions options;  // slot_ns = 0: derived
  // Short rounds whatever the pilot saw, so their median is microseconds even on a busy machine.
  options.max_window_ns = 50000;
  WindowRelease window(2, team.table(), options);
  pilot(team, window);
  constexpr int kStallRound = 30;
  // Rounds without a construct last microseconds; the slot is 20x their median, at least 20 us.
  // 10 ms stays beyond it even when a busy machine stretches the rounds.
  const std::vector<RoundOutcome> outcomes = run_rounds(
      team, window, 31, [](int, int) {},
      [](int tid, int round) {
        if (tid == 0 && round == kStallRound) sleep_ns(1e7);
      });
  EXPECT_TRUE(outcomes[kStallRound].overrun);
}

TEST(WindowRelease, DerivedSlotAcceptsLongConstructs) {
  // Every round lasts about 1 ms: far beyond the 20 us floor, but typical, so not an overrun.
  const Team team(2, {0, 1e6});
  WindowRelease window(2, team.table());
  pilot(team, window);
  const std::vector<RoundOutcome> outcomes = run_rounds(
      team, window, 10, [](int, int) {}, [](int, int) { sleep_ns(1e6); });
  const auto overruns = std::count_if(outcomes.begin(), outcomes.end(),
                                      [](const RoundOutcome& o) { return o.overrun; });
  EXPECT_LE(overruns, 2);
}

TEST(WindowRelease, EndBatchGrowsShrinksAndStaysInBounds) {
  WindowOptions options;
  options.pilot_window_ns = 10000;
  options.max_window_ns = 50000;
  WindowRelease window(1, OffsetTable(std::vector<OffsetEstimate>(1)), options);
  EXPECT_DOUBLE_EQ(window.window_ns(), 10000);
  window.end_batch(20, 10);  // half late: grow
  EXPECT_DOUBLE_EQ(window.window_ns(), 20000);
  window.end_batch(20, 0);  // none late: shrink
  EXPECT_DOUBLE_EQ(window.window_ns(), 19600);
  window.end_batch(20, 3);  // a few late: hold
  EXPECT_DOUBLE_EQ(window.window_ns(), 19600);
  for (int i = 0; i < 10; ++i) window.end_batch(20, 20);
  EXPECT_DOUBLE_EQ(window.window_ns(), 50000);
  window.end_batch(0, 0);  // empty batch: nothing learned
  EXPECT_DOUBLE_EQ(window.window_ns(), 50000);
}

TEST(WindowRelease, ShrinkingStopsAtThePilotLatency) {
  const Team team(2, {0, 1e6});
  WindowRelease window(2, team.table());
  pilot(team, window);
  for (int i = 0; i < 2000; ++i) window.end_batch(20, 0);
  EXPECT_DOUBLE_EQ(window.window_ns(), window.pilot_latency_ns());
}

TEST(WindowRelease, SingleThreadIsLateOnlyWhenPreempted) {
  WindowRelease window(1, OffsetTable(std::vector<OffsetEstimate>(1)));
  const LocalClock clock;
  window.pilot(0, clock);
  EXPECT_EQ(window.pilot_latency_ns(), 0);
  // Late means released more than 1 us after the start: only a preemption between the two (this
  // VM has them, more so under sanitizers) makes a lone thread late, so most rounds are not.
  int late = 0;
  for (int r = 0; r < 20; ++r) {
    const ReleaseStamp stamp = window.wait_release(0, clock);
    window.finish(0, clock.now());
    late += stamp.late ? 1 : 0;
    EXPECT_GE(stamp.release, window.outcome().start);
    EXPECT_EQ(window.outcome().release_skew_ns, 0);
  }
  EXPECT_LE(late, 3);
}

TEST(WindowRelease, FourThreadsOnTwoCoresComplete) {
  const auto begin = std::chrono::steady_clock::now();
  // Unbound: wherever the scheduler puts them, two threads per core on average. Every hand-off
  // may be a context switch (or a time slice, when another process competes), so the
  // calibration is kept short: this test is about completing, not precision.
  CalibrationOptions calibration;
  calibration.exchanges_per_batch = 25;
  calibration.batches = 2;
  const Team team(4, {0, 1e6, -2.5e5, 5e5}, /*bound=*/false, calibration);
  for (const OffsetEstimate& e : team.estimates()) EXPECT_GE(e.uncertainty_ns, 0);
  CausalityCheck check(4, team.estimates(), 5);
  team.run([&](int tid) { check.participate(tid, team.clock(tid)); });
  EXPECT_EQ(check.result().checks, 5 * 4 * 3);
  WindowOptions options;
  options.pilot_rounds = 16;
  WindowRelease window(4, team.table(), options);
  pilot(team, window);
  const std::vector<RoundOutcome> outcomes = run_rounds(team, window, 20);
  for (std::size_t r = 1; r < outcomes.size(); ++r) {
    EXPECT_GT(outcomes[r].start, outcomes[r - 1].start);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  EXPECT_LT(seconds, 5.0);
}

TEST(RoundTripCanary, MeasuresACrossCoreRoundTrip) {
  RoundTripCanary canary;
  std::vector<double> medians(3, -1);
  testing::run_team(3, [&](int tid) {
    const double first = canary.measure(tid, 200);
    const double second = canary.measure(tid, 200);  // reusable
    medians[static_cast<std::size_t>(tid)] = tid == 0 ? std::min(first, second) : first + second;
  });
  EXPECT_GT(medians[0], 0);
  EXPECT_LT(medians[0], 100000);
  EXPECT_EQ(medians[1], 0);
  EXPECT_EQ(medians[2], 0);
}

}  // namespace
}  // namespace ompscale::sync

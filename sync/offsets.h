#pragma once
// Clock offsets between the master (thread 0) and every other thread, NTP-style, over shared
// cache lines.
//
// One exchange between the master and thread i: the master stamps t1 and stores the exchange's
// sequence number into its "ping" line (release); thread i spins on that line (acquire), stamps t2
// and stores t2 and the sequence number into its "pong" line; the master spins on the pong line and
// stamps t3. With both clocks read through LocalClock:
//   offset_i = t2 - (t1 + t3) / 2        (thread clock minus master clock)
// is exact when both directions take equally long; whatever the asymmetry,
//   t2 - t3 <= offset_i <= t2 - t1
// holds for every exchange, so max(t2 - t3) and min(t2 - t1) over all exchanges bound the offset
// (SKaMPI); each bound widens by one clock step, as a stamp may read up to one step early. The
// estimate is the mean offset of the exchanges with the smallest round trips (t3 - t1), which are
// the least disturbed, clamped into the bounds (so it lies in the guaranteed interval, usually near
// its middle; the uncertainty is the interval's half-width). Exchanges come in batches spread in
// time (all threads' batches in turn, then batch_gap_us); a linear fit of the batch estimates over
// time gives the drift. The master talks to one thread at a time, so the estimate for thread i is
// not disturbed by the others; the others spin on their own ping line meanwhile.
//
// A master-corrected stamp of thread i is `stamp - offset_i` (plus drift * elapsed, negligible for
// invariant TSCs); OffsetTable::to_master does this.

#include <cstdint>
#include <vector>

#include "sync/clock.h"

namespace ompscale::sync {

struct CalibrationOptions {
  /// Exchanges per batch with each thread.
  int exchanges_per_batch = 100;
  /// Batches per thread; drift is fitted over them (needs >= 2).
  int batches = 4;
  /// Pause between batches, so the batches span time and drift becomes visible.
  double batch_gap_us = 200;
  /// Fraction of exchanges (lowest round trips first) the estimate is taken from.
  double best_fraction = 0.1;
};

/// The calibration result for one thread (thread 0's is all zeros).
struct OffsetEstimate {
  double offset_ns = 0;          // thread clock minus master clock
  double lower_ns = 0;           // guaranteed bound: max over exchanges of t2 - t3, less a step
  double upper_ns = 0;           // guaranteed bound: min over exchanges of t2 - t1, plus a step
  double uncertainty_ns = 0;     // half-width of the guaranteed interval [lower, upper]
  double min_round_trip_ns = 0;  // t3 - t1 of the fastest exchange
  double median_round_trip_ns = 0;
  double drift_ppm = 0;  // slope of the batch estimates over time, in 1e-6 (ns per ms)
  int exchanges = 0;
};

/// Per-thread offsets in ticks, ready to correct stamps. Converts ns to ticks when constructed, so
/// construct it after init_clock().
class OffsetTable {
 public:
  OffsetTable() = default;
  explicit OffsetTable(const std::vector<OffsetEstimate>& estimates);
  /// Thread `tid`'s stamp on the master's clock.
  double to_master(int tid, std::uint64_t stamp) const {
    return static_cast<double>(stamp) - offset_ticks_[static_cast<std::size_t>(tid)];
  }
  /// The instant `master_ticks` on thread `tid`'s clock (what tid spins towards).
  double from_master(int tid, double master_ticks) const {
    return master_ticks + offset_ticks_[static_cast<std::size_t>(tid)];
  }
  int threads() const { return static_cast<int>(offset_ticks_.size()); }
  /// The fastest round trip (ns) any thread had with the master; 0 when unknown (one thread).
  /// WindowRelease adds it to the window.
  double min_round_trip_ns() const { return min_round_trip_ns_; }
  /// The largest uncertainty (ns) of any thread's offset: how far a corrected stamp may lie from
  /// the instant it was taken on the master's clock.
  double max_uncertainty_ns() const { return max_uncertainty_ns_; }

 private:
  std::vector<double> offset_ticks_;
  double min_round_trip_ns_ = 0;
  double max_uncertainty_ns_ = 0;
};

/// Runs the calibration for a team of `threads` threads. Every thread of the team calls
/// participate(tid, clock) concurrently (inside `#pragma omp parallel`, or from std::threads);
/// the call returns when calibration is complete for all threads. Not reusable: make a new one per
/// calibration. Takes about threads * batches * exchanges_per_batch round trips plus the gaps
/// (a few ms on two cores); oversubscribed, hand-offs cost a context switch each (~15 us).
class OffsetCalibrator {
 public:
  OffsetCalibrator(int threads, CalibrationOptions options = {});
  ~OffsetCalibrator();
  OffsetCalibrator(const OffsetCalibrator&) = delete;
  OffsetCalibrator& operator=(const OffsetCalibrator&) = delete;

  void participate(int tid, const LocalClock& clock);

  /// Valid after every participate() returned. Index = thread id.
  const std::vector<OffsetEstimate>& estimates() const { return estimates_; }
  OffsetTable table() const { return OffsetTable(estimates_); }

 private:
  struct Shared;
  int threads_;
  CalibrationOptions options_;
  Shared* shared_;  // cache-line-aligned exchange lines, one pair per thread
  std::vector<OffsetEstimate> estimates_;
};

/// The causality check: thread `a` stamps and then publishes; thread `b` sees the publication and
/// then stamps. Corrected to the master's clock, b's stamp must not precede a's by more than the
/// two threads' combined uncertainty. Every ordered pair of threads is checked `rounds` times, one
/// pair at a time: the master announces each pair on a shared "turn" line and waits for both
/// stamps before the next.
struct CausalityResult {
  int checks = 0;
  int violations = 0;
  double worst_ns = 0;  // largest amount (ns) by which b preceded a (0 when never)
};

/// Called by every thread of a team concurrently, like OffsetCalibrator::participate. The result is
/// written by thread 0 into `result` before the call returns on thread 0.
class CausalityCheck {
 public:
  /// `estimates` as calibrated (or deliberately wrong, to test the check); threads beyond its end
  /// are taken as exact.
  CausalityCheck(int threads, const std::vector<OffsetEstimate>& estimates, int rounds = 20);
  ~CausalityCheck();
  CausalityCheck(const CausalityCheck&) = delete;
  CausalityCheck& operator=(const CausalityCheck&) = delete;

  void participate(int tid, const LocalClock& clock);
  /// Valid after every participate() returned.
  const CausalityResult& result() const { return result_; }

 private:
  struct Shared;
  int threads_;
  int rounds_;
  std::vector<OffsetEstimate> estimates_;
  OffsetTable table_;
  Shared* shared_;
  CausalityResult result_;
};

}  // namespace ompscale::sync

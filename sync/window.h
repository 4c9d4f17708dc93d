#pragma once
// Window-based release: all threads of a team leave the synchronisation at one agreed instant, so
// a construct measured right after it starts from a common, known time (the "too many threads"
// paper, section 3.3, after the MPI window scheme of SKaMPI).
//
// Per round, the master publishes {round, start} on one cache line, start = now + window. Every
// thread spins until it sees the round, then spins until its own clock, corrected by its offset,
// reaches start; it stamps that release instant. A thread that sees the publication only after
// start, or is released more than max_release_delay_ns after it (descheduled while waiting), is
// late. After the measured construct every thread reports its end stamp; a round in which
// the last end lies more than `slot` after start has overrun (the thread was descheduled or
// interrupted). Late or overrun rounds are flagged invalid; they are still reported.
//
// The window adapts: the pilot sets it to the 99th percentile of the observed publication latency
// (time from the master's publication until the last thread saw it, at most the pilot window; the
// lower order statistic, so of 64 pilot rounds the second largest) plus one minimum round trip
// (OffsetTable::min_round_trip_ns); after each batch it doubles when more than a quarter of the
// rounds were late, shrinks by 2% after a batch without late rounds and holds otherwise, never
// below the pilot's publication latency nor above max_window_ns (the cap wins).
//
// Waits spin with AdaptiveBackoff (see spin.h), so an oversubscribed team makes progress; its
// rounds are then mostly late or overrun, which is the truth about them.

#include <atomic>
#include <cstdint>
#include <vector>

#include "sync/clock.h"
#include "sync/offsets.h"

namespace ompscale::sync {

struct WindowOptions {
  /// Rounds of the pilot that sizes the window.
  int pilot_rounds = 64;
  /// Window to start the pilot with (ns); large, so the pilot itself is never late.
  double pilot_window_ns = 50000;
  /// Growth factor when more than `max_late_fraction` of a batch's rounds were late.
  double grow = 2.0;
  /// Shrink factor after a batch without late rounds.
  double shrink = 0.98;
  double max_late_fraction = 0.25;
  /// A thread released more than this after the start (ns) was descheduled while it waited; the
  /// round counts as late. Releases on this VM spread by 12-50 ns.
  double max_release_delay_ns = 1000;
  /// Upper limit of the window (ns), so a pathological phase cannot make rounds arbitrarily slow.
  double max_window_ns = 2e6;
  /// A round overruns when its last end stamp is more than `slot_ns` after its start. 0 = derive:
  /// 20x the median round duration seen so far (pilot excluded, this round included, median
  /// resolved to 9%), at least 20 us.
  double slot_ns = 0;
};

/// What one thread saw in one round.
struct ReleaseStamp {
  double release = 0;  // release instant, master clock, ticks
  bool late =
      false;  // saw the publication after the start, or released > max_release_delay_ns late
};

/// One round's outcome, computed by the master from all threads' stamps.
struct RoundOutcome {
  double start = 0;            // agreed start instant, master clock, ticks
  double release_skew_ns = 0;  // spread (max - min) of the threads' actual release instants
  bool late = false;           // any thread late
  bool overrun = false;        // last end beyond start + slot
  bool valid() const { return !late && !overrun; }
};

/// Releases a team round by round. Every thread calls the methods for its tid concurrently.
///
///   // in each thread, per round:
///   ReleaseStamp r = window.wait_release(tid, clock);   // blocks until the agreed start
///   ... stamp, construct, stamp ...
///   window.finish(tid, end_stamp);                        // report the end (local ticks)
///   // master after finish(): window.outcome() describes the round (all threads' data are in)
///
/// The master's finish() waits until every thread has finished the round, so the next round's
/// publication never overtakes a slow thread.
class WindowRelease {
 public:
  WindowRelease(int threads, OffsetTable offsets, WindowOptions options = {});
  ~WindowRelease();
  WindowRelease(const WindowRelease&) = delete;
  WindowRelease& operator=(const WindowRelease&) = delete;

  /// Runs the pilot (all threads call it): options.pilot_rounds rounds with the pilot window, no
  /// construct; sets the window and pilot_latency_ns(). Its rounds do not count towards the
  /// derived slot.
  void pilot(int tid, const LocalClock& clock);

  /// The master publishes the round and waits for its start like everyone else; the others wait
  /// for the publication, then for the start on their own clock. No allocation, lock or system
  /// call unless a wait runs long enough to yield.
  ReleaseStamp wait_release(int tid, const LocalClock& clock);
  /// `end_stamp` is the thread's local clock after the construct.
  void finish(int tid, std::uint64_t end_stamp);

  /// Master only, after its finish(): the round just completed.
  const RoundOutcome& outcome() const { return outcome_; }

  /// Master only, between batches: adapts the window from the batch's late fraction.
  void end_batch(int rounds, int late_rounds);

  double window_ns() const { return window_ns_; }
  double pilot_latency_ns() const { return pilot_latency_ns_; }

 private:
  struct Shared;
  int threads_;
  OffsetTable offsets_;
  WindowOptions options_;
  Shared* shared_;
  double window_ns_;
  double pilot_latency_ns_ = 0;
  RoundOutcome outcome_;
};

}  // namespace ompscale::sync

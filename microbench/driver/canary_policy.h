#pragma once
// The sweep's canary policy: what a batch's noise canaries (sync/canary.h: a cross-core
// round trip and a compute loop, before and after the batch) are judged against, and the verdict
// on each batch (the batch judge). The reference is the machine's typical state from earlier runs
// (canary_store.h) while the sweep can wait for it, else the median of this run's own canaries.

#include <vector>

#include "microbench/driver/machine_lock.h"
#include "microbench/driver/progress.h"
#include "microbench/driver/run_options.h"
#include "microbench/driver/sidecar.h"

namespace ompscale::microbench {

// Round-trip canaries the driver measures itself, with two threads pinned to CPUs 0 and 1 (as a
// bound team would be): before the first batch, so the reference does not depend on which
// configuration happens to come first, and while it waits for a fast phase.
std::vector<double> driver_canaries(int exchanges, int probes);

// The reference a batch's canary is judged against: the median of every canary of the run so far.
// Not the minimum: a quiet machine's canaries spread by about 1.6x (minimum to maximum), and the
// minimum would call a third of them slow. A slow phase moves the round trip by up to 5x.
class CanaryReference {
 public:
  void add(double canary);
  double value() const { return values_.empty() ? 0 : values_[values_.size() / 2]; }

 private:
  std::vector<double> values_;  // sorted
};

// The canary policy: which round trip and compute speed a batch's canaries are judged against
// (the machine's typical state from earlier runs while the sweep can wait for it, else this run's
// own canaries), and the waiting for the typical state.
class CanaryPolicy {
 public:
  CanaryPolicy(const RunOptions& options, double typical_round_trip, MachineLock& machine_lock,
               ProgressBar& progress, RunRecord& record)
      : options_(options),
        typical_round_trip_(typical_round_trip),
        use_typical_(typical_round_trip > 0),
        machine_lock_(machine_lock),
        progress_(progress),
        record_(record) {}

  /// Round trips the driver measured itself (before the first batch).
  void add_probes(const std::vector<double>& probes) {
    for (double probe : probes) reference_.add(probe);
  }

  // The verdict on one batch (the batch judge): `phase`: its round trip was outside the
  // machine's typical state; `slow`: a phase change, or a canary above its reference times the
  // slow factor.
  struct Verdict {
    bool phase = false;
    bool slow = false;
  };
  Verdict judge(double canary, double compute);

  /// Waits (bounded, interruptible) until the round trip is back in the machine's typical state;
  /// after --max-wait in a slower state, or at once in a faster one (the typical state has
  /// changed), judges by this run's own canaries from then on.
  void wait_for_typical_state();
  /// A machine that flaps between states faster than a round: stop waiting for it.
  void stop_using_typical(int phase_stops);

  double round_trip_reference() const {
    return use_typical_ ? typical_round_trip_ : reference_.value();
  }
  double own_round_trip() const { return reference_.value(); }
  double compute_reference() const { return compute_reference_.value(); }
  double waited_seconds() const { return waited_seconds_; }

 private:
  // Another state than the typical one, in either direction: both change what a construct costs.
  bool off_state(double round_trip) const;
  // Faster than the typical state by more than the slow factor.
  bool faster_state(double round_trip) const;
  double median_probe();

  const RunOptions& options_;
  double typical_round_trip_;
  bool use_typical_;
  double waited_seconds_ = 0;
  CanaryReference reference_;          // cross-core round trip
  CanaryReference compute_reference_;  // compute speed
  MachineLock& machine_lock_;
  ProgressBar& progress_;
  RunRecord& record_;
};

}  // namespace ompscale::microbench

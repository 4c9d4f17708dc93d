#pragma once
// The direct method (the "too many threads" paper, section 3.2): per repetition, every thread is
// released by the window at one agreed instant, stamps, executes one instance of the construct and
// stamps again. With stamps corrected to the master's clock ("in" = release stamp before the
// construct, "out" = stamp after it):
//   min_cost = first out - last in      (the least time the construct was active on all threads)
//   avg_cost = mean over threads of (out - last in)
//   max_cost = last out - last in
//   release_skew = spread of the threads' actual release instants
// For constructs that create the team (parallel, parallel_for, reduction, firstprivate and the
// data-environment constructs) only the master is released; its stamp before the construct is
// "last in", each thread stamps first thing inside the region and the master stamps after it:
//   fork_avg = mean over threads of (first stamp inside - master's stamp before)
//   fork_max = max over threads of the same
//   join     = master's stamp after - last thread's stamp at the end of the region body
//   min_cost/avg_cost/max_cost as above with "out" = each thread's end-of-body stamp, and
//   total = master's stamp after - master's stamp before.
// For `for` and the schedules, each thread also stamps at its first iteration:
//   enter_avg / enter_max = first iteration - last in (mean, max over threads).
// Rounds that were late or overran the window yield valid=false samples.

#include <cstdint>
#include <vector>

#include "microbench/measurement.h"
#include "sync/offsets.h"
#include "sync/window.h"

namespace ompscale::microbench {

struct DirectOptions {
  sync::CalibrationOptions calibration;
  sync::WindowOptions window;
  /// Rounds run and discarded before the first measured value of each batch.
  int warmup = 5;
  /// Causality-check rounds per ordered thread pair after each calibration.
  int causality_rounds = 20;
  /// Injected clock skew per thread id, in ticks (tests only; missing ids get 0).
  std::vector<std::int64_t> skew_ticks;
};

/// The calibration a team got, for the sidecar.
struct TeamCalibration {
  int threads = 0;
  std::vector<sync::OffsetEstimate> offsets;  // index = thread id
  sync::CausalityResult causality;
  double window_ns = 0;         // window after the last batch
  double pilot_latency_ns = 0;  // publication latency the pilot saw (p99)
  int rounds = 0;
  int late_rounds = 0;
  int overrun_rounds = 0;
  /// Rounds of team-creating constructs whose stamps no region could produce (a thread's end
  /// after the join, direct_metrics.h): written valid=0.
  int inconsistent_rounds = 0;
};

/// Runs direct measurements. Calibrates each team size once, at its first batch (offsets,
/// causality check, window pilot), and keeps the window state per team size across batches.
class DirectRunner {
 public:
  explicit DirectRunner(DirectOptions options = {});
  ~DirectRunner();
  DirectRunner(const DirectRunner&) = delete;
  DirectRunner& operator=(const DirectRunner&) = delete;

  /// Precondition: request.construct->direct. Runs outside any parallel region.
  BatchResult run(const BatchRequest& request);

  /// One entry per team size calibrated so far.
  std::vector<TeamCalibration> calibrations() const;

 private:
  struct Team;
  Team& team(int threads);
  DirectOptions options_;
  std::vector<Team*> teams_;
};

}  // namespace ompscale::microbench

#pragma once
// The EPCC v4 method (Bull et al., EPCC OpenMP micro-benchmarks): a construct is executed
// `inner` times around a delay loop of `delay_us`; the same loop without the construct is the
// reference; overhead per execution = (test time - reference time) / inner. `inner` is chosen so
// one test takes about `test_time_us`. Each value (sample) is one outer repetition.
//
// Fixed weak spots of EPCC v4:
// - inner repetitions come from the median of `probes` timed probes, not from one doubling probe
//   that a single preemption can cut short;
// - the reference is re-measured with every batch (interleaved with the test), not once per run;
// - a repetition disturbed by other work (its threads waited for a CPU, or it is a 3x outlier),
//   or whose test ran far shorter than the target (inner count from another machine phase), is
//   reported valid=false.
// Metric names: "overhead" (ns per construct execution), one sample per outer repetition.

#include <map>
#include <string>
#include <tuple>

#include "microbench/measurement.h"

namespace ompscale::microbench {

struct EpccOptions {
  /// Delay inside each construct execution (EPCC's default 0.1 us).
  double delay_us = 0.1;
  /// Target duration of one outer repetition (EPCC's default 1000 us).
  double test_time_us = 1000;
  /// Timed probes whose median sets the inner repetition count.
  int probes = 5;
  /// Outer repetitions run and discarded at the start of each batch.
  int warmup = 1;
};

class EpccRunner {
 public:
  explicit EpccRunner(EpccOptions options = {});
  /// Precondition: request.construct->epcc. Runs outside any parallel region.
  BatchResult run(const BatchRequest& request);

 private:
  void calibrate_delays();

  EpccOptions options_;
  // Calibrated at the first batch, then reused: delay() iterations for options_.delay_us, and
  // for barrier_late's late arrival; -1 until calibrated.
  int delay_length_ = -1;
  int late_delay_length_ = -1;
  // Inner repetitions by (construct, parameter value, threads), calibrated at the first batch.
  std::map<std::tuple<std::string, std::string, int>, long> inner_reps_;
};

}  // namespace ompscale::microbench

#pragma once
// POP-style efficiencies of one run (docs/ompscan-report.md, "POP efficiencies"): how much of
// the threads' time was useful work, split into load balance and serialisation.
//
// Over the outermost parallel regions, with useful_t the work of thread t (0 <= t < P, P the
// run's thread count; a thread absent from a region did no work in it), summed over the regions
// and scaled to all executions, and W the regions' summed scaled wall time:
//
//   load balance                    LB  = mean_t useful_t / max_t useful_t
//   communication (serialisation)   CE  = max_t useful_t / W
//   parallel efficiency             PE  = LB * CE = mean_t useful_t / W
//
// The whole run adds the serial regions as useful work of thread 0 and uses the profile's
// process time (tool initialisation -> finalize) for W. Sampled regions are calibrated to the
// process time first (calibration.h), so the parallel regions' and serial gaps' times add up to
// W and no efficiency exceeds 1.

#include <string>

#include "regions/report/read_runs.h"

namespace ompscale::regions::report {

struct PopEfficiencies {
  double load_balance = 0.0;
  double communication = 0.0;
  double parallel = 0.0;
  double useful_mean = 0.0;  ///< seconds
  double useful_max = 0.0;
  double wall = 0.0;  ///< the denominator W
};

struct RunPop {
  std::string run_id;
  int threads = 0;
  std::string input;
  int repetition = 0;
  PopEfficiencies parallel_regions;  ///< outermost parallel regions only
  PopEfficiencies whole_run;         ///< serial regions included, over the process time
  double process = 0.0;              ///< the profile's process time (s), 0 when absent
  /// Outermost parallel regions + serial gaps, scaled, before calibration, over `process`: 1 when
  /// every execution was measured; sampled estimates show as a deviation.
  double coverage = 1.0;
};

/// The efficiencies of a run with a profile; zeros where there is nothing to divide by.
RunPop pop_efficiencies(const RunFile& run);

}  // namespace ompscale::regions::report

#pragma once
// Sampled totals checked against, and calibrated to, what is known exactly.
//
// The initial thread's time from tool start to finalize (the profile's process_ns) is tiled by
// the outermost parallel regions and the serial gaps between them, so their scaled times must
// add up to it. A sampled estimate (Horvitz-Thompson, one weight per measured execution) is
// unbiased but, with heavy-tailed execution times (a preempted execution among the sampled ones,
// or none among them on a time-shared machine), can miss that total by a factor. The difference
// is given to the sampled estimates in proportion to their estimated variances (a calibration:
// an estimate measured in full has none and keeps its value), and each calibrated region's sums
// are multiplied by the same factor, so its costs keep their share of its time.

#include <map>

#include "regions/report/read_runs.h"

namespace ompscale::regions::report {

struct Calibration {
  /// covered / process before calibration: 1 when every execution was measured.
  double coverage = 1.0;
  double process_s = 0.0;  ///< the profile's process time; 0 when it has none
  double covered_s = 0.0;  ///< outermost parallel regions + serial gaps, scaled
  /// Factor on the scaled sums of each calibrated region, by region id (absent: 1).
  std::map<long long, double> factors;

  double factor(long long id) const {
    const auto it = factors.find(id);
    return it == factors.end() ? 1.0 : it->second;
  }
};

/// The calibration of one profile's outermost sampled regions to its process time.
Calibration calibrate(const Profile& profile);

}  // namespace ompscale::regions::report

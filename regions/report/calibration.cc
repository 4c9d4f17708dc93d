#include "regions/report/calibration.h"

#include <algorithm>

#include "regions/report/read_runs.h"

namespace ompscale::regions::report {

namespace {

// The regions whose times tile the process time.
bool tiles_the_process(const RegionRecord& r) {
  return r.nesting_level == 0 && r.executions_measured > 0.0 &&
         (r.kind == RegionKind::kParallel || r.kind == RegionKind::kSerial);
}

}  // namespace

Calibration calibrate(const Profile& profile) {
  Calibration out;
  double variance = 0.0;
  for (const RegionRecord& r : profile.regions) {
    if (!tiles_the_process(r)) continue;
    out.covered_s += r.wall_ns * sampling_scale(r) * kSecondsPerNs;
    variance += r.wall_se_ns * r.wall_se_ns;
  }
  out.process_s = profile.process_ns * kSecondsPerNs;
  if (!(out.process_s > 0.0) || !(out.covered_s > 0.0)) return out;
  out.coverage = out.covered_s / out.process_s;
  if (!(variance > 0.0)) return out;
  const double difference = out.process_s - out.covered_s;
  for (const RegionRecord& r : profile.regions) {
    if (!tiles_the_process(r) || !(r.wall_se_ns > 0.0) || !(r.wall_ns > 0.0)) continue;
    const double time = r.wall_ns * sampling_scale(r) * kSecondsPerNs;
    const double share = r.wall_se_ns * r.wall_se_ns / variance;
    out.factors[r.id] = std::max(0.0, time + share * difference) / time;
  }
  return out;
}

}  // namespace ompscale::regions::report

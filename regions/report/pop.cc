#include "regions/report/pop.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include "regions/report/calibration.h"
#include "regions/report/read_runs.h"

namespace ompscale::regions::report {

namespace {

PopEfficiencies efficiencies(const std::vector<double>& useful, double wall) {
  PopEfficiencies e;
  if (useful.empty()) return e;
  e.useful_mean =
      std::accumulate(useful.begin(), useful.end(), 0.0) / static_cast<double>(useful.size());
  e.useful_max = *std::max_element(useful.begin(), useful.end());
  e.wall = wall;
  e.load_balance = e.useful_max > 0.0 ? e.useful_mean / e.useful_max : 0.0;
  e.communication = wall > 0.0 ? e.useful_max / wall : 0.0;
  e.parallel = e.load_balance * e.communication;
  return e;
}

}  // namespace

RunPop pop_efficiencies(const RunFile& run) {
  RunPop out;
  out.run_id = run.run_id;
  out.threads = run.threads;
  out.input = run.input;
  out.repetition = run.repetition;
  if (!run.profile) return out;
  const Calibration calibration = calibrate(*run.profile);
  std::vector<double> useful(static_cast<std::size_t>(run.threads), 0.0);
  double parallel_wall = 0.0;
  double serial = 0.0;
  for (const RegionRecord& r : run.profile->regions) {
    if (r.nesting_level != 0 || r.executions_measured <= 0.0) continue;
    const double scale = sampling_scale(r) * calibration.factor(r.id) * kSecondsPerNs;
    if (r.kind == RegionKind::kSerial) {
      serial += r.wall_ns * scale;
    } else if (r.kind == RegionKind::kParallel) {
      parallel_wall += r.wall_ns * scale;
      for (const ThreadRecord& t : r.threads) {
        // Threads beyond the run's count (a num_threads clause asking for more) extend the list.
        if (t.thread < 0) continue;
        const auto index = static_cast<std::size_t>(t.thread);
        if (index >= useful.size()) useful.resize(index + 1, 0.0);
        useful[index] += t.work_ns * scale;
      }
    }
  }
  out.parallel_regions = efficiencies(useful, parallel_wall);
  useful[0] += serial;
  out.process = calibration.process_s;
  out.coverage = calibration.coverage;
  out.whole_run = efficiencies(useful, std::max(out.process, parallel_wall + serial));
  return out;
}

}  // namespace ompscale::regions::report

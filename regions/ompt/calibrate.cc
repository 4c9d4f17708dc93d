#include "regions/ompt/calibrate.h"

#include <cmath>

namespace ompscale::regions::ompt {
namespace {

template <typename T>
void scale(T& value, double factor) {
  value = static_cast<T>(std::llround(static_cast<double>(value) * factor));
}

// A thread's time sums and the counts that grow with an execution's size by `size`, its counts
// of once-per-execution events by `per_execution`.
void scale_thread(ThreadStats& t, double size, double per_execution) {
  for (std::uint64_t* v :
       {&t.span_ticks, &t.fork_ticks, &t.team_start_ticks, &t.start_cpu_wait_ticks,
        &t.imbalance_ticks, &t.walkthrough_ticks, &t.startup_ticks, &t.inner_barrier_ticks,
        &t.task_ticks, &t.end_task_ticks, &t.barrier_task_ticks, &t.task_wait_ticks,
        &t.taskwait_ticks, &t.masked_ticks, &t.lock_acquisitions, &t.tasks_created,
        &t.tasks_completed}) {
    scale(*v, size);
  }
  t.lock_wait_estimate_ticks *= size;
  scale(t.barriers, per_execution);
  scale(t.masked_executions, per_execution);
}

void scale_site(SiteStats::PerThread& b, double size, double per_execution) {
  for (std::uint64_t* v : {&b.imbalance_ticks, &b.walkthrough_ticks, &b.startup_ticks,
                           &b.task_wait_ticks, &b.task_ticks}) {
    scale(*v, size);
  }
  scale(b.barriers, per_execution);
}

void scale_loop(LoopStats::PerThread& t, double size, double per_execution) {
  scale(t.ticks, size);
  scale(t.iterations, size);
  scale(t.executions, per_execution);
}

}  // namespace

RegionStats calibrated(const RegionStats& stats, std::uint64_t all_wall_ticks,
                       std::uint64_t all_executions) {
  RegionStats out = stats;
  if (stats.wall_ticks == 0 || all_wall_ticks == 0) {
    out.wall_ticks = all_wall_ticks;  // nothing measured to scale; the total is still known
    return out;
  }
  const double size = static_cast<double>(all_wall_ticks) / static_cast<double>(stats.wall_ticks);
  const double per_execution =
      stats.estimated_executions > 0
          ? static_cast<double>(all_executions) / static_cast<double>(stats.estimated_executions)
          : 1.0;
  for (ThreadStats& t : out.threads) scale_thread(t, size, per_execution);
  for (LockStats& lock : out.locks) {
    lock.wait_estimate_ticks *= size;
    scale(lock.acquisitions, size);
  }
  for (LoopStats& loop : out.loops) {
    for (LoopStats::PerThread& t : loop.threads) scale_loop(t, size, per_execution);
  }
  for (SiteStats& site : out.sites) {
    for (SiteStats::PerThread& b : site.threads) scale_site(b, size, per_execution);
  }
  out.wall_ticks = all_wall_ticks;
  out.estimated_executions = all_executions;
  out.calibration = size;
  return out;
}

}  // namespace ompscale::regions::ompt

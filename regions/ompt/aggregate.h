#pragma once
// Per-region statistics, summed from records under the aggregation lock (Globals): when a
// buffer fills (on its thread), when a thread ends, and at finalize. Sums stay in ticks; the
// profile writer converts. Heap objects never freed, like everything finalize touches.
//
// Every sum but the counts of what was measured (executions measured, timed acquisitions and
// their raw durations) is a Horvitz-Thompson estimate of the total over all executions: each
// record's values times its weight (record.h, sampling.h).

#include <cstdint>
#include <vector>

#include "regions/ompt/code_location.h"
#include "regions/ompt/record.h"
#include "regions/ompt/sampling.h"

namespace ompscale::regions::ompt {

/// One thread number's estimated totals over a region's executions.
struct ThreadStats {
  std::uint64_t executions = 0;  // spans: measured executions this thread took part in
  std::uint64_t span_ticks = 0;  // implicit-task begin -> arrival at the end barrier
  std::uint64_t fork_ticks = 0;
  std::uint64_t team_start_ticks = 0;      // waiting for the runtime to start threads (record.h)
  std::uint64_t start_cpu_wait_ticks = 0;  // of it, waiting for a CPU before the first barrier
  std::uint64_t barriers = 0;
  std::uint64_t imbalance_ticks = 0;
  std::uint64_t walkthrough_ticks = 0;
  std::uint64_t startup_ticks = 0;
  std::uint64_t inner_barrier_ticks = 0;  // phases and task waits of the barriers inside the span
  std::uint64_t lock_acquisitions = 0;
  std::uint64_t lock_timed = 0;
  std::uint64_t lock_wait_ticks = 0;
  double lock_wait_estimate_ticks = 0;  // timed waits weighted by their sampling periods
  std::uint64_t tasks_created = 0;
  std::uint64_t tasks_completed = 0;
  std::uint64_t task_ticks = 0;
  std::uint64_t end_task_ticks = 0;      // explicit tasks run inside the end barrier
  std::uint64_t barrier_task_ticks = 0;  // explicit tasks run inside any barrier
  std::uint64_t task_wait_ticks = 0;     // barriers waiting for the team's last tasks to end
  std::uint64_t taskwait_ticks = 0;      // taskwaits and taskgroup ends not running a task
  std::uint64_t masked_executions = 0;
  std::uint64_t masked_ticks = 0;
  std::uint64_t manual_executions = 0;
  std::uint64_t manual_ticks = 0;
};

/// A lock kind at one code location inside a region.
struct LockStats {
  const void* codeptr = nullptr;
  std::uint8_t kind = 0;  // ompt_mutex_t, test variants folded into their lock kind
  std::uint64_t acquisitions = 0;
  std::uint64_t timed = 0;
  std::uint64_t wait_ticks = 0;
  // Every timed wait times the acquisitions it stands for (up to the next timed one): an
  // unbiased estimate of all acquisitions' wait, where wait_ticks * acquisitions / timed is not
  // (the first acquisitions of an execution are all timed, later ones sparsely).
  double wait_estimate_ticks = 0;
  std::uint64_t fastest_ticks = ~0ull;
  std::uint64_t hold_ticks = 0;
  std::uint64_t hold_timed = 0;  // timed acquisitions whose release was seen
};

/// A worksharing loop inside a region; counts per thread number, as every thread reports it.
struct LoopStats {
  const void* codeptr = nullptr;
  std::uint8_t type = 0;  // ompt_work_t
  struct PerThread {
    std::uint64_t executions = 0;
    std::uint64_t iterations = 0;  // the runtime's counts (libomp: the loop's trip count)
    std::uint64_t ticks = 0;
  };
  std::vector<PerThread> threads;
};

/// The barriers and waits of one construct site inside a region (region_table.h), per thread
/// number.
struct SiteStats {
  struct PerThread {
    std::uint64_t barriers = 0;
    std::uint64_t imbalance_ticks = 0;
    std::uint64_t walkthrough_ticks = 0;
    std::uint64_t startup_ticks = 0;
    std::uint64_t task_wait_ticks = 0;  // barriers and taskwaits waiting for tasks to end
    std::uint64_t task_ticks = 0;       // explicit tasks run inside them
  };
  std::vector<PerThread> threads;
  std::uint64_t end_barriers = 0;  // of them, the region's end barrier
};

struct RegionStats {
  std::uint64_t measured = 0;  // executions whose instance record arrived
  std::uint64_t wall_ticks = 0;
  std::uint64_t estimated_executions = 0;  // sum of the measured executions' weights
  SplitSums split;           // its time into work and idle time per thread (sampling.h)
  double calibration = 1.0;  // calibrated(): the factor applied to the estimated time sums
  std::uint32_t team_min = ~0u;
  std::uint32_t team_max = 0;
  std::vector<ThreadStats> threads;  // by thread number
  std::vector<LockStats> locks;
  std::vector<LoopStats> loops;       // every worksharing construct (the profile's loops[]: loops)
  std::vector<SiteStats> sites;       // by site index (region_table.h)
  std::uint64_t serial_measured = 0;  // the serial gap before this region
  std::uint64_t serial_ticks = 0;
  double serial_variance = 0;
};

/// Adds n records. The caller holds the aggregation lock.
void aggregate_records(const Record* records, std::uint32_t n);

/// A region's statistics (null when nothing was aggregated for it). Under the lock.
const RegionStats* region_stats(std::uint32_t region);

/// The statistics of the serial time after the last parallel region (null when none).
const RegionStats* serial_end_stats();

/// Folds test_lock into lock and test_nest_lock into nest_lock.
std::uint8_t lock_kind_family(std::uint8_t kind);

}  // namespace ompscale::regions::ompt

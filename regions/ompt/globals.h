#pragma once
// Process-wide state of the tool. Constant-initialized and trivially destructible: the runtime
// calls the tool's finalize after the tool library's static destructors ran, and callbacks may
// fire on other threads during exit.

#include <sys/types.h>

#include <atomic>
#include <cstdint>

#include "regions/ompt/sampling.h"
#include "regions/ompt/spin_lock.h"

namespace ompscale::regions::ompt {

struct Globals {
  std::atomic<bool> initialized{false};
  // Records can no longer be aggregated: finalize began, or this process is a fork() child
  // (whose profile would overwrite the parent's). Buffers that fill then drop records.
  std::atomic<bool> stopped{false};
  pid_t pid = 0;  // of the process the tool initialized in

  RegionSampling region_sampling;
  AdaptiveSampler lock_sampler = kLockSampler;
  bool sample_all = false;  // OMPSCAN_SAMPLING=all
  // OMPSCAN_LOCATIONS=raw: the profile gets module, build id and offset only; the launcher
  // (ompscan run) resolves source lines after the application exited.
  bool raw_locations = false;

  // The runtime's omp_get_schedule (found at initialize; null when it has none): a runtime
  // loop's schedule is the run-sched-var in effect, which OMP_SCHEDULE, omp_set_schedule or the
  // runtime's own default sets (region_table.h: Region::site_schedules).
  void (*get_schedule)(int* kind, int* chunk) = nullptr;

  std::uint64_t init_ticks = 0;
  unsigned omp_version = 0;
  char runtime_version[256] = {};

  std::atomic<std::uint32_t> max_threads{0};  // largest team seen (measured executions)
  // Worker threads begun and not ended: a parallel begin that requests more expects the runtime
  // to start threads (Instance::expect_start). Nested teams are not told apart, and guesses that
  // proved wrong (no thread started) stop the guessing after a few.
  std::atomic<std::uint32_t> workers_begun{0};
  std::atomic<std::uint32_t> start_guesses_missed{0};
  std::atomic<std::uint64_t> dropped_events{0};
  std::atomic<std::uint64_t> buffer_full_events{0};
  std::atomic<std::uint64_t> aggregation_ticks{0};     // spent emptying full buffers
  std::atomic<std::uint64_t> unmeasured_no_memory{0};  // executions left unmeasured: no instance
  // Implicit tasks of measured executions left unmeasured: nested deeper than kMaxMeasuredDepth
  // on one thread, or numbered beyond the team size requested at parallel begin.
  std::atomic<std::uint64_t> unmeasured_tasks{0};
  std::atomic<std::uint64_t> manual_unmatched{0};  // manual ends without a matching begin

  // Parallel regions the initial thread is inside now: libomp does not finalize while it is in
  // one (exit() called from a region), so the tool's own exit handler writes the profile then.
  std::atomic<std::uint32_t> initial_encountered{0};

  // The initial thread's time outside parallel regions (written only by the initial thread).
  std::uint64_t serial_start = 0;   // the last outermost parallel end, or tool start
  bool serial_pending = false;      // serial_start is a measured stamp
  unsigned serial_log2_weight = 0;  // a gap is measured when the execution before it was

  SpinLock aggregation_lock;  // guards the aggregated statistics (aggregate.h)
};

extern constinit Globals g;

}  // namespace ompscale::regions::ompt

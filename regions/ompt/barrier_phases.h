#pragma once
// ScalOMP's three phases of one thread's pass through one barrier (IWOMP 2019, section 3.3),
// with explicit tasks taken apart:
//
//   imbalance   = last arrival - own arrival       (waiting for the team's latest thread)
//   task wait   = the barrier waits for the team's last explicit tasks to end: from the last
//                 arrival to the end of the last task run inside the barrier
//   walkthrough = first departure - max(last arrival, last task end)   (the barrier algorithm)
//   startup     = own departure - first departure  (the release reaching this thread; ScalOMP
//                                                   blames it on the barrier that released it)
//
// Explicit tasks the thread ran while inside the barrier are work, not waiting: they are taken
// out of the imbalance phase first, then out of the task wait (a thread runs the tasks it finds as
// soon as it finds them, so its task time is counted from its arrival on). The phases and the
// task time add up to the thread's time in the barrier.

#include <algorithm>
#include <cstdint>

#include "regions/ompt/record.h"

namespace ompscale::regions::ompt {

struct BarrierPhases {
  std::uint64_t imbalance = 0;
  std::uint64_t walkthrough = 0;
  std::uint64_t startup = 0;
  std::uint64_t task_wait = 0;
};

/// Phases in ticks from the stamps of one thread (arrival, departure, the explicit-task ticks it
/// ran inside the barrier) and the team's extremes (ticks() values; tasks_done: the end of the
/// last explicit task any thread ran inside the barrier, 0 when none).
constexpr BarrierPhases barrier_phases(std::uint64_t arrival, std::uint64_t departure,
                                       std::uint64_t last_arrival, std::uint64_t first_departure,
                                       std::uint64_t task_ticks, std::uint64_t tasks_done = 0) {
  // The barrier could complete once everyone had arrived and the last task had ended.
  const std::uint64_t complete = std::max(last_arrival, std::min(tasks_done, first_departure));
  const std::uint64_t before = ticks_between(arrival, last_arrival);
  const std::uint64_t tasks_before = std::min(task_ticks, before);
  BarrierPhases phases;
  phases.imbalance = before - tasks_before;
  phases.task_wait = ticks_between(task_ticks - tasks_before,
                                   ticks_between(std::max(arrival, last_arrival), complete));
  phases.walkthrough = ticks_between(complete, first_departure);
  phases.startup = ticks_between(first_departure, departure);
  return phases;
}

}  // namespace ompscale::regions::ompt

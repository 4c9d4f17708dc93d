#pragma once
// ScalOMP's three phases of one thread's pass through one barrier (IWOMP 2019, section 3.3):
//
//   imbalance   = last arrival - own arrival       (waiting for the team's latest thread)
//   walkthrough = first departure - last arrival   (the barrier algorithm itself)
//   startup     = own departure - first departure  (the release reaching this thread; ScalOMP
//                                                   blames it on the barrier that released it)
//
// They add up to the thread's time in the barrier. Explicit tasks the thread ran while waiting
// are work, not imbalance, so they are taken out of the imbalance phase.

#include <cstdint>

#include "regions/tool/record.h"

namespace ompscale::regions::tool {

struct BarrierPhases {
  std::uint64_t imbalance = 0;
  std::uint64_t walkthrough = 0;
  std::uint64_t startup = 0;
};

/// Phases in ticks from the stamps of one thread and the team's extremes (ticks() values).
constexpr BarrierPhases barrier_phases(std::uint64_t arrival, std::uint64_t departure,
                                       std::uint64_t last_arrival, std::uint64_t first_departure,
                                       std::uint64_t task_ticks) {
  BarrierPhases phases;
  phases.imbalance = ticks_between(task_ticks, ticks_between(arrival, last_arrival));
  phases.walkthrough = ticks_between(last_arrival, first_departure);
  phases.startup = ticks_between(first_departure, departure);
  return phases;
}

}  // namespace ompscale::regions::tool

#pragma once
// Helpers for the sync tests: run a team of std::threads, each with its own LocalClock.

#include <sched.h>

#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

#include "sync/clock.h"

namespace ompscale::sync::testing {

/// Where thread `tid` of a team runs, like OMP_PROC_BIND=close with one place per CPU: the CPUs
/// this process may use, in order, round robin.
inline cpu_set_t cpu_of_thread(int tid) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  sched_getaffinity(0, sizeof(allowed), &allowed);
  const int count = CPU_COUNT(&allowed);
  int wanted = tid % (count > 0 ? count : 1);
  cpu_set_t one;
  CPU_ZERO(&one);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &allowed) && wanted-- == 0) {
      CPU_SET(cpu, &one);
      return one;
    }
  }
  return allowed;
}

/// Runs body(tid) on `threads` std::threads concurrently and joins them. Bound threads each get a
/// CPU as an OpenMP runtime binds its team: unbound, the scheduler often starts both threads of a
/// pair on one CPU, where they cannot run at once and every hand-off costs a context switch.
inline void run_team(int threads, const std::function<void(int)>& body, bool bound = true) {
  std::vector<std::thread> team;
  team.reserve(static_cast<std::size_t>(threads));
  for (int tid = 0; tid < threads; ++tid) {
    team.emplace_back([&body, tid, bound] {
      if (bound) {
        const cpu_set_t cpu = cpu_of_thread(tid);
        sched_setaffinity(0, sizeof(cpu), &cpu);
      }
      body(tid);
    });
  }
  for (std::thread& thread : team) thread.join();
}

/// One LocalClock per thread with the given skews in ns (missing threads get none).
inline std::vector<LocalClock> skewed_clocks(int threads, const std::vector<double>& skews_ns) {
  std::vector<LocalClock> clocks(static_cast<std::size_t>(threads));
  for (std::size_t i = 0; i < skews_ns.size() && i < clocks.size(); ++i) {
    clocks[i].skew_ticks = static_cast<std::int64_t>(ns_to_ticks(skews_ns[i]));
  }
  return clocks;
}

}  // namespace ompscale::sync::testing

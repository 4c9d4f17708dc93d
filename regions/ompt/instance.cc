#include "regions/ompt/instance.h"

#include <algorithm>
#include <bit>
#include <new>

#include "regions/ompt/barrier_phases.h"
#include "regions/ompt/globals.h"
#include "regions/ompt/region_table.h"
#include "regions/ompt/run_delay.h"
#include "regions/ompt/thread_state.h"
#include "sync/clock.h"

namespace ompscale::regions::ompt {
namespace {

Instance* allocate(std::uint32_t capacity) {
  auto* instance = new (std::nothrow) Instance;
  if (instance == nullptr) return nullptr;
  instance->slots = new (std::nothrow) ThreadSlot[capacity];
  if (instance->slots == nullptr) {
    delete instance;
    return nullptr;
  }
  instance->capacity = capacity;
  return instance;
}

void atomic_max(std::atomic<std::uint64_t>& target, std::uint64_t value) {
  std::uint64_t seen = target.load(std::memory_order_relaxed);
  while (seen < value && !target.compare_exchange_weak(seen, value, std::memory_order_acq_rel,
                                                       std::memory_order_relaxed)) {
  }
}

void atomic_min(std::atomic<std::uint64_t>& target, std::uint64_t value) {
  std::uint64_t seen = target.load(std::memory_order_relaxed);
  while (seen > value && !target.compare_exchange_weak(seen, value, std::memory_order_acq_rel,
                                                       std::memory_order_relaxed)) {
  }
}

// `start_wait`: the part of the imbalance phase that was the wait for the runtime to start
// threads (starting_wait()), recorded as team start-up.
void write_barrier(ThreadState& ts, std::uint32_t region, std::uint16_t thread, bool end_barrier,
                   std::uint8_t site, BarrierPhases phases, std::uint64_t task_ticks,
                   std::uint64_t start_wait) {
  const std::uint8_t sub = wait_sub(end_barrier ? kWaitEndBarrier : kWaitInnerBarrier, site);
  if (start_wait != 0) [[unlikely]] {
    append(ts, RecordType::kTeamStart, region, thread,
           end_barrier ? kWaitEndBarrier : kWaitInnerBarrier, start_wait);
    phases.imbalance -= start_wait;
  }
  append(ts, RecordType::kBarrier, region, thread, sub, phases.imbalance, phases.walkthrough,
         phases.startup);
  if (phases.task_wait != 0 || task_ticks != 0) {
    append(ts, RecordType::kTaskWait, region, thread, sub, phases.task_wait, task_ticks);
  }
}

bool team_started(const Instance& instance) {
  return instance.team_started.load(std::memory_order_acquire);
}

// A slot's work before the first barrier: begin -> first arrival, less its wait for a CPU.
std::uint64_t work_to_first_arrival(const ThreadSlot& slot) {
  const std::uint64_t span = ticks_between(slot.begin, slot.arrival0);
  return span - std::min(span, slot.cpu_wait);
}

// The part of `slot`'s wait before the last arrival at the execution's first barrier that was the
// wait for the runtime to start threads (0 unless it started some in this execution). Had every
// thread begun at parallel begin with a CPU of its own, the barrier would have waited only for
// the most work (arrival - own begin - own wait for a CPU): what the thread waited beyond its
// share of that is start-up. The slots' begin, first arrival and wait for a CPU were written
// before anyone left that barrier.
std::uint64_t starting_wait(const Instance& instance, const ThreadSlot& slot,
                            std::uint64_t imbalance) {
  if (imbalance == 0 || !team_started(instance)) return 0;
  std::uint64_t most = 0;
  for (std::uint32_t i = 0; i < instance.team; ++i) {
    const ThreadSlot& other = instance.slots[i];
    if (other.begin != 0) most = std::max(most, work_to_first_arrival(other));
  }
  const std::uint64_t own = work_to_first_arrival(slot);
  return imbalance - std::min(imbalance, most - std::min(most, own));
}

// The phases of the barrier `slot` departed last, now that everyone has departed it.
void write_departed(ThreadState& ts, const Instance& instance, const ThreadSlot& slot,
                    std::uint32_t barrier, std::uint16_t thread) {
  const BarrierBoard& entry = instance.board[barrier % kBoardSize];
  const std::uint64_t first_departure = entry.first_departure.load(std::memory_order_acquire);
  const std::uint64_t tasks_done = entry.tasks_done.load(std::memory_order_acquire);
  const BarrierPhases phases =
      barrier_phases(slot.departed_arrival, slot.departed_departure, slot.departed_last_arrival,
                     first_departure, slot.departed_task_ticks, tasks_done);
  write_barrier(ts, instance.record_region, thread, false, slot.departed_site, phases,
                slot.departed_task_ticks,
                barrier == 0 ? starting_wait(instance, slot, phases.imbalance) : 0);
}

// A slot's work in an execution, as the profile counts it (profile_writer.cc, work_ticks): its
// span less its barrier waits that ran no task and its wait for a CPU while the team started,
// plus the tasks it ran in the end barrier. Its lock waits and idle taskwaits stay in it: they
// are known only from sampled records.
std::uint64_t slot_work(const ThreadSlot& slot, std::uint64_t span, std::uint64_t end_tasks,
                        std::uint64_t cpu_wait) {
  const std::uint64_t waiting = slot.waited + cpu_wait;
  return span - std::min(span, waiting) + end_tasks;
}

// A measured execution of `region` took `wall` ticks with `team` threads, which spent `idle`
// ticks not working in all: the moving averages of its executions' wall time, of
// their idle time per thread, and of the split's squared residual (how far the idle time per
// thread departs from its average share of the wall time, over the mean wall time: sampling.h,
// SplitSums), and the sampling period they imply for the next ones. The residual's average
// starts at the first execution's squared share (as if the idle time varied as much as it is
// large) and moves slower: a pattern of a few odd executions among many (work per call that
// cycles) must show in it.
void update_sampling(std::uint32_t id, std::uint64_t wall, std::uint64_t idle, std::uint32_t team) {
  Region* region = region_by_id(id);
  if (region == nullptr) return;
  region->all_wall_ticks.fetch_add(wall, std::memory_order_relaxed);
  const std::uint64_t mean = region->mean_wall_ticks.load(std::memory_order_relaxed);
  const std::uint64_t updated = mean == 0 ? wall : mean - mean / 8 + wall / 8;
  region->mean_wall_ticks.store(updated, std::memory_order_relaxed);
  const double idle_now = static_cast<double>(idle) / std::max(team, 1u);
  const double mean_idle = region->mean_idle_ticks.load(std::memory_order_relaxed);
  const double idle_updated = mean == 0 ? idle_now : mean_idle + (idle_now - mean_idle) / 8;
  region->mean_idle_ticks.store(idle_updated, std::memory_order_relaxed);
  const double mean_wall = static_cast<double>(std::max<std::uint64_t>(updated, 1));
  const double share = idle_updated / mean_wall;
  const double residual = (idle_now - share * static_cast<double>(wall)) / mean_wall;
  const double m2 = region->residual_second_moment.load(std::memory_order_relaxed);
  const double m2_updated = mean == 0 ? share * share : m2 + (residual * residual - m2) / 64;
  region->residual_second_moment.store(m2_updated, std::memory_order_relaxed);
  const double mean_ns = sync::ticks_to_ns(static_cast<double>(updated));
  const std::uint64_t executions = region->executions.load(std::memory_order_relaxed);
  region->log2_period.store(g.region_sampling.log2_period(mean_ns, team, executions, m2_updated),
                            std::memory_order_relaxed);
}

// The end of the last explicit task any thread ran inside the region's end barrier (0: none).
std::uint64_t end_tasks_done(const Instance& instance) {
  std::uint64_t done = 0;
  for (std::uint32_t i = 0; i < instance.team; ++i) {
    const ThreadSlot& slot = instance.slots[i];
    if (slot.begin != 0 && slot.arrivals > slot.departures) {
      done = std::max(done, slot.arrival_task_end.load(std::memory_order_relaxed));
    }
  }
  return done;
}

}  // namespace

void preallocate_instances(ThreadState& ts) {
  for (int i = 0; i < 2; ++i) {
    Instance* instance = allocate(kPreallocatedSlots);
    if (instance == nullptr) return;
    instance->next_free = ts.free_instances;
    ts.free_instances = instance;
  }
}

Instance* take_instance(ThreadState& ts, std::uint32_t team, std::uint32_t region,
                        unsigned log2_weight, std::uint64_t begin) {
  const std::uint32_t capacity = std::bit_ceil(std::max<std::uint32_t>(team, 4));
  Instance** link = &ts.free_instances;
  while (*link != nullptr && (*link)->capacity < capacity) link = &(*link)->next_free;
  Instance* instance = *link;
  if (instance != nullptr) {
    *link = instance->next_free;
  } else {
    instance = allocate(capacity);
    if (instance == nullptr) return nullptr;
  }
  instance->next_free = nullptr;
  instance->team = capacity;
  instance->generation.fetch_add(1, std::memory_order_relaxed);
  instance->region = region;
  instance->record_region = record_region(region, log2_weight);
  instance->begin = begin;
  instance->end_departure = 0;
  instance->joined.store(0, std::memory_order_relaxed);
  instance->team_started.store(false, std::memory_order_relaxed);
  instance->expect_start = false;
  for (BarrierBoard& entry : instance->board) entry.reset();
  for (std::uint32_t i = 0; i < instance->team; ++i) instance->slots[i].reset();
  return instance;
}

void barrier_arrive(TaskContext& context, std::uint64_t now, std::uint8_t site) {
  Instance& instance = *context.instance;
  const std::uint32_t barrier = context.barriers;
  BarrierBoard& entry = instance.board[barrier % kBoardSize];
  atomic_max(entry.last_arrival, now);
  const std::uint32_t arrived = entry.arrived.fetch_add(1, std::memory_order_acq_rel) + 1;
  // The last arriver prepares the entry of barrier + 2; `joined` is final from barrier 1 on.
  if (barrier >= 2 && arrived == instance.joined.load(std::memory_order_acquire)) {
    instance.board[(barrier + 2) % kBoardSize].reset();
  }
  ThreadSlot& slot = *context.slot;
  if (barrier == 0) {
    slot.arrival0 = now;
    if (slot.measure_cpu_wait && slot.run_delay_end_ns > slot.run_delay_begin_ns) [[unlikely]] {
      const auto waited = static_cast<std::uint64_t>(
          sync::ns_to_ticks(static_cast<double>(slot.run_delay_end_ns - slot.run_delay_begin_ns)));
      slot.cpu_wait = std::min(waited, ticks_between(slot.begin, now));
    }
  }
  slot.arrivals = barrier + 1;
  slot.arrival = now;
  slot.arrival_site = site;
  slot.arrival_task_ticks.store(0, std::memory_order_relaxed);
  slot.arrival_task_end.store(0, std::memory_order_relaxed);
  context.barriers = barrier + 1;
  context.in_barrier = true;
  context.barrier_task_ticks = 0;
  context.barrier_task_end = 0;
}

void note_run_delay(ThreadSlot& slot) {
  const std::optional<std::uint64_t> delay = thread_run_delay_ns();
  slot.measure_cpu_wait = delay.has_value();
  slot.run_delay_begin_ns = delay.value_or(0);
  slot.run_delay_end_ns = 0;
}

void note_run_delay_end(ThreadSlot& slot) {
  slot.run_delay_end_ns = thread_run_delay_ns().value_or(0);
}

void barrier_depart(TaskContext& context, std::uint64_t now) {
  Instance& instance = *context.instance;
  const std::uint32_t barrier = context.barriers - 1;
  BarrierBoard& entry = instance.board[barrier % kBoardSize];
  atomic_min(entry.first_departure, now);
  // Before this thread arrives at the next barrier, so the team reads it final when it writes
  // this barrier's phases (at its departure from the next one).
  if (context.barrier_task_end != 0) atomic_max(entry.tasks_done, context.barrier_task_end);
  ThreadSlot& slot = *context.slot;
  if (slot.departures > 0) {
    write_departed(*context.thread, instance, slot, slot.departures - 1, context.index);
  }
  slot.departures = barrier + 1;
  const std::uint64_t stayed = ticks_between(slot.arrival, now);
  slot.waited += stayed - std::min(stayed, context.barrier_task_ticks);
  slot.departed_arrival = slot.arrival;
  slot.departed_site = slot.arrival_site;
  slot.departed_departure = now;
  slot.departed_last_arrival = entry.last_arrival.load(std::memory_order_acquire);
  slot.departed_task_ticks = context.barrier_task_ticks;
  context.in_barrier = false;
}

void finish_instance(ThreadState& ts, Instance& instance, std::uint64_t end) {
  const std::uint64_t departure = instance.end_departure != 0 ? instance.end_departure : end;
  const std::uint64_t tasks_done = end_tasks_done(instance);
  const bool starting = team_started(instance);
  const std::uint64_t wall = ticks_between(instance.begin, end);
  std::uint32_t team = 0;
  std::uint64_t idle = 0;  // the team's ticks not working (slot_work)
  for (std::uint32_t i = 0; i < instance.team; ++i) {
    const ThreadSlot& slot = instance.slots[i];
    if (slot.begin == 0) continue;
    ++team;
    const auto thread = static_cast<std::uint16_t>(i);
    // A thread that arrived at a barrier it did not leave is in the end barrier (teams of one and
    // serialized regions have none).
    const bool in_end_barrier = slot.arrivals > slot.departures;
    if (slot.departures > 0) write_departed(ts, instance, slot, slot.departures - 1, thread);
    std::uint64_t span_end = slot.task_end != 0 ? slot.task_end : end;
    const std::uint64_t end_tasks = slot.arrival_task_ticks.load(std::memory_order_relaxed);
    if (in_end_barrier) {
      const BarrierBoard& entry = instance.board[(slot.arrivals - 1) % kBoardSize];
      const std::uint64_t last_arrival = entry.last_arrival.load(std::memory_order_acquire);
      const BarrierPhases phases =
          barrier_phases(slot.arrival, departure, last_arrival, departure, end_tasks, tasks_done);
      write_barrier(ts, instance.record_region, thread, true, slot.arrival_site, phases, end_tasks,
                    slot.arrivals == 1 ? starting_wait(instance, slot, phases.imbalance) : 0);
      span_end = slot.arrival;
    }
    // A thread's fork in a starting team is its wait for the runtime to start threads.
    const std::uint64_t fork = ticks_between(instance.begin, slot.begin);
    if (starting && fork != 0) {
      append(ts, RecordType::kTeamStart, instance.record_region, thread, kTeamStartFork, fork);
    }
    if (starting && slot.cpu_wait != 0) {
      append(ts, RecordType::kTeamStart, instance.record_region, thread, kTeamStartCpuWait,
             slot.cpu_wait);
    }
    const std::uint64_t span = ticks_between(slot.begin, span_end);
    append(ts, RecordType::kSpan, instance.record_region, thread, 0, span, starting ? 0 : fork,
           in_end_barrier ? end_tasks : 0);
    idle += wall - std::min(wall, slot_work(slot, span, in_end_barrier ? end_tasks : 0,
                                            starting ? slot.cpu_wait : 0));
  }
  if (instance.expect_start && !starting) {
    g.start_guesses_missed.fetch_add(1, std::memory_order_relaxed);
  }
  append(ts, RecordType::kInstance, instance.record_region, 0, 0, wall, team, idle);
  update_sampling(instance.region, wall, idle, team);
  std::uint32_t seen = g.max_threads.load(std::memory_order_relaxed);
  while (seen < team && !g.max_threads.compare_exchange_weak(seen, team)) {
  }
  instance.generation.fetch_add(1, std::memory_order_release);
  instance.next_free = ts.free_instances;
  ts.free_instances = &instance;
}

}  // namespace ompscale::regions::ompt

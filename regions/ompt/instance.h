#pragma once
// One measured execution ("instance") of a parallel region, shared by its team.
//
// The master takes an Instance from its own pool at parallel begin and returns it at parallel
// end (both on the master, so the pool needs no lock), carrying it to the team in parallel_data.
// Each thread owns one ThreadSlot (its cache line) for the stamps the master needs at the end,
// and the team meets on a small board for each barrier's last arrival and first departure:
//
// - arrival at barrier b: atomic max into board[b % 4].last_arrival; the team's last arriver
//   resets board[(b + 2) % 4] for barrier b + 2 (everyone has read it: all departed b - 1).
// - departure from b: atomic min into board[b % 4].first_departure; last_arrival is final (the
//   barrier released nobody before everyone arrived), and board[(b - 1) % 4].first_departure is
//   final too (everyone departed b - 1 before arriving at b), so barrier b - 1's phases are
//   complete and its record is written now. Barrier b's wait in the slot for the next departure.
// - the region's end barrier: libomp reports a worker's departure from it only at the next fork,
//   so a worker's region ends at its arrival there, and all threads leave when the master does.
//   At parallel end the master completes every slot: the last departed barrier, the end barrier
//   and the thread's span, written as records of its own buffer on behalf of each thread.
//
// libomp's actual_parallelism argument is unreliable (14 passes 4 whatever the team), so the
// team is counted: `joined` is final once any barrier has been passed, which is all the board's
// reset needs (it first resets at barrier 2).

#include <atomic>
#include <cstdint>

namespace ompscale::regions::ompt {

struct ThreadState;
struct TaskContext;

inline constexpr std::uint32_t kBoardSize = 4;

struct alignas(64) BarrierBoard {
  std::atomic<std::uint64_t> last_arrival{0};
  std::atomic<std::uint64_t> first_departure{~0ull};
  std::atomic<std::uint32_t> arrived{0};
  // The end of the last explicit task run inside the barrier (0: none), maxed in by each thread
  // that ran tasks there as it departs: one atomic per thread and barrier, not one per task.
  std::atomic<std::uint64_t> tasks_done{0};

  void reset() {
    last_arrival.store(0, std::memory_order_relaxed);
    first_departure.store(~0ull, std::memory_order_relaxed);
    arrived.store(0, std::memory_order_relaxed);
    tasks_done.store(0, std::memory_order_relaxed);
  }
};

/// Written by its thread during the instance, read by the master at parallel end (after the
/// runtime's join, which orders them). Plain fields except where another thread may still write.
struct alignas(64) ThreadSlot {
  std::uint64_t begin = 0;     // implicit-task begin; 0 = this thread did not join
  std::uint64_t task_end = 0;  // implicit-task end (the master's only, seen before the join)
  std::uint32_t arrivals = 0;  // barriers arrived at
  std::uint64_t arrival = 0;   // the latest arrival
  std::uint64_t arrival0 = 0;  // the arrival at the first barrier (team start-up, instance.cc)
  std::uint64_t waited = 0;    // arrival -> departure, summed over the barriers departed
  // In an execution that starts threads: the thread's run delay (run_delay.h) at its begin and
  // just before its first barrier arrival, and how long it waited for a CPU in between (ticks,
  // at most its span to that arrival). An idle taskwait there would count in both.
  bool measure_cpu_wait = false;
  std::uint64_t run_delay_begin_ns = 0;
  std::uint64_t run_delay_end_ns = 0;
  std::uint64_t cpu_wait = 0;
  std::uint8_t arrival_site = 0;   // its construct site (region_table.h)
  std::uint8_t departed_site = 0;  // that of the latest departed barrier
  // Explicit-task ticks since the latest arrival: at the end barrier, tasks may still finish
  // while the master reads it.
  std::atomic<std::uint64_t> arrival_task_ticks{0};
  std::atomic<std::uint64_t> arrival_task_end{0};  // the last of those tasks ended; 0 = none
  // The latest departed barrier (number departures - 1), whose startup phase is final only once
  // the whole team departed it.
  std::uint32_t departures = 0;
  std::uint64_t departed_arrival = 0;
  std::uint64_t departed_departure = 0;
  std::uint64_t departed_last_arrival = 0;
  std::uint64_t departed_task_ticks = 0;

  void reset() {
    begin = task_end = 0;
    arrivals = 0;
    arrival = 0;
    arrival0 = 0;
    waited = 0;
    measure_cpu_wait = false;
    cpu_wait = 0;
    arrival_task_ticks.store(0, std::memory_order_relaxed);
    arrival_task_end.store(0, std::memory_order_relaxed);
    departures = 0;
  }
};

struct Instance {
  Instance* next_free = nullptr;  // in the master's pool
  ThreadSlot* slots = nullptr;
  std::uint32_t capacity = 0;  // slots allocated
  std::uint32_t team = 0;      // slots in use by this execution: threads numbered >= team are
                               // left unmeasured
  // Bumped when the master returns the instance: a late event of a finished execution (a
  // worker's end-barrier departure at the next fork) sees a different generation than its own.
  std::atomic<std::uint32_t> generation{0};
  std::uint32_t region = 0;
  std::uint32_t record_region = 0;  // record_region(region, the sampling weight): its records'
  std::uint64_t begin = 0;          // parallel begin, on the master
  // What the team writes during the execution lies on a cache line of its own: the fields
  // above are read at every event (generation at each barrier departure), and a write by one
  // thread to their line would make every other thread's next read miss.
  alignas(64) std::uint64_t end_departure = 0;  // the master leaves the end barrier; 0 = not seen
  std::atomic<std::uint32_t> joined{0};
  // A thread the runtime started for this execution joined it (ThreadState::fresh): the forks
  // and the part of the first barrier's waits the late start caused are recorded as team
  // start-up instead of fork and imbalance.
  std::atomic<bool> team_started{false};
  // The master expects the runtime to start threads for this execution (more requested than
  // workers have begun): it notes its run delay too, as the new threads may share its CPU.
  bool expect_start = false;
  BarrierBoard board[kBoardSize];
};

/// Slots of the instances every thread state starts with, so teams up to this size are measured
/// without allocating inside a region.
inline constexpr std::uint32_t kPreallocatedSlots = 64;

/// Adds two instances of kPreallocatedSlots to `ts`'s pool (at thread begin: a nested region's
/// master needs two).
void preallocate_instances(ThreadState& ts);

/// An instance for a team of up to `team` threads from `ts`'s pool (allocated when the pool has
/// none large enough, never freed), reset for a new execution of `region` starting at `begin`,
/// measured at sampling period 2^log2_weight.
/// Null when out of memory.
Instance* take_instance(ThreadState& ts, std::uint32_t team, std::uint32_t region,
                        unsigned log2_weight, std::uint64_t begin);

/// The calling thread arrives at its next barrier of the instance at `now`; the barrier belongs
/// to construct site `site`.
void barrier_arrive(TaskContext& context, std::uint64_t now, std::uint8_t site);

/// Notes the calling thread's run delay at its implicit-task begin in `slot` (an execution that
/// starts threads): its wait for a CPU up to its first barrier arrival is team start-up.
void note_run_delay(ThreadSlot& slot);

/// Notes it again before the thread's first barrier arrival is stamped (the read's own cost then
/// delays no one's release); barrier_arrive() turns the two into the slot's cpu_wait.
void note_run_delay_end(ThreadSlot& slot);

/// The calling thread leaves the barrier it arrived at last (not the end barrier) at `now`.
void barrier_depart(TaskContext& context, std::uint64_t now);

/// Ends the execution at parallel end (`end`, on the master): writes the span and barrier records
/// of every thread and the instance record into the master's buffer, updates the region's
/// sampling period, and returns the instance to the pool.
void finish_instance(ThreadState& ts, Instance& instance, std::uint64_t end);

}  // namespace ompscale::regions::ompt

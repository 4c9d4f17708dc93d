#include "regions/ompt/callbacks.h"

#include <atomic>
#include <cstdint>

#include "regions/ompt/barrier_phases.h"
#include "regions/ompt/globals.h"
#include "regions/ompt/instance.h"
#include "regions/ompt/region_table.h"
#include "regions/ompt/thread_state.h"
#include "sync/clock.h"

namespace ompscale::regions::ompt {
namespace {

static_assert(kNoConstruct == kNoSite, "thread_state.h and region_table.h agree");

// Stamps of regions, implicit tasks and loops, microseconds apart: unordered reads (sync/clock.h)
// keep the fences out of the application's pipeline on most events. What can be shorter than an
// unordered read's error (up to the out-of-order window, some hundreds of cycles) keeps ordered
// reads (sync::ticks): barrier arrivals and departures (their phases can be under a
// microsecond), explicit tasks and lock acquisitions.
std::uint64_t stamp() {
  return sync::ticks_unordered();
}

std::uint8_t site(TaskContext& context, const void* codeptr, std::uint8_t kind) {
  return context.region_ptr != nullptr ? site_of(*context.region_ptr, codeptr, kind) : kNoSite;
}

std::uint8_t site(TaskContext& context, const void* codeptr, SiteKind kind) {
  return site(context, codeptr, static_cast<std::uint8_t>(kind));
}

bool is_task_wait(ompt_sync_region_t kind) {
  return kind == ompt_sync_region_taskwait || kind == ompt_sync_region_taskgroup;
}

bool is_barrier(ompt_sync_region_t kind) {
  switch (static_cast<int>(kind)) {
    case 1:  // ompt_sync_region_barrier (deprecated in 5.1)
    case 2:  // ompt_sync_region_barrier_implicit (deprecated in 5.1)
    case ompt_sync_region_barrier_explicit:
    case ompt_sync_region_barrier_implementation:
    case ompt_sync_region_barrier_implicit_workshare:
    case ompt_sync_region_barrier_implicit_parallel:
    case ompt_sync_region_barrier_teams:
      return true;
    default:
      return false;
  }
}

// ----------------------------------------------------------------------------------------------
// Threads.

void on_thread_begin(ompt_thread_t type, ompt_data_t* thread_data) {
  ThreadState* ts = attach_thread(type == ompt_thread_initial);
  if (thread_data != nullptr) thread_data->ptr = ts;
  if (ts == nullptr) return;
  ts->counted_worker = type == ompt_thread_worker;
  if (ts->counted_worker) g.workers_begun.fetch_add(1, std::memory_order_relaxed);
}

void on_thread_end(ompt_data_t* /*thread_data*/) {
  ThreadState* ts = tls_thread;
  if (ts == nullptr) return;
  if (ts->counted_worker) g.workers_begun.fetch_sub(1, std::memory_order_relaxed);
  ts->counted_worker = false;
  detach_thread(*ts);
}

// Whether the runtime will likely start threads for a team of `requested`: more than the
// workers that have begun, unless such guesses kept proving wrong.
bool expects_team_start(unsigned int requested) {
  constexpr std::uint32_t kMaxMissedGuesses = 8;
  return requested > g.workers_begun.load(std::memory_order_relaxed) + 1 &&
         g.start_guesses_missed.load(std::memory_order_relaxed) < kMaxMissedGuesses;
}

// ----------------------------------------------------------------------------------------------
// Parallel regions and implicit tasks.

void on_parallel_begin(ompt_data_t* /*encountering_task_data*/,
                       const ompt_frame_t* /*encountering_task_frame*/, ompt_data_t* parallel_data,
                       unsigned int requested_parallelism, int /*flags*/, const void* codeptr_ra) {
  parallel_data->value = 0;
  ThreadState* ts = tls_thread;
  if (ts == nullptr) return;
  ThreadState::Encountered* saved =
      ts->encountered < kMaxEncountered ? &ts->saved[ts->encountered] : nullptr;
  if (saved != nullptr) *saved = {tls_context, ts->current_region, ts->current_index, 0};
  const bool outermost_on_initial = ts->initial && ts->encountered == 0;
  ++ts->encountered;
  if (ts->initial) g.initial_encountered.store(ts->encountered, std::memory_order_relaxed);
  if (g.stopped.load(std::memory_order_relaxed)) return;

  Region* region = find_parallel_region(codeptr_ra, parent_for_new_region(*ts));
  if (region == nullptr) return;
  const std::uint64_t n = region->executions.fetch_add(1, std::memory_order_relaxed);
  Instance* instance = nullptr;
  std::uint64_t now = 0;
  const unsigned log2_period =
      n < g.region_sampling.always_first ? 0 : region->log2_period.load(std::memory_order_relaxed);
  if (measure_execution(n, log2_period)) {
    now = stamp();
    instance = take_instance(*ts, requested_parallelism, region->id, log2_period, now);
    if (instance == nullptr) {
      g.unmeasured_no_memory.fetch_add(1, std::memory_order_relaxed);
    } else {
      instance->expect_start = expects_team_start(requested_parallelism);
    }
  }
  if (instance == nullptr && saved != nullptr) {
    // Its wall time still counts in the region's total (on_parallel_end).
    if (now == 0) now = stamp();
    saved->unmeasured_begin = now;
  }
  if (outermost_on_initial) {
    // Only the initial thread writes it: no read-modify-write needed.
    region->serial_executions.store(region->serial_executions.load(std::memory_order_relaxed) + 1,
                                    std::memory_order_relaxed);
    if (g.serial_pending) {
      if (now == 0) now = stamp();
      append(*ts, RecordType::kSerial, record_region(region->id, g.serial_log2_weight), 0, 0,
             ticks_between(g.serial_start, now));
      g.serial_pending = false;
    }
  }
  parallel_data->value =
      instance != nullptr ? reinterpret_cast<std::uintptr_t>(instance) : unmeasured_tag(region->id);
}

void on_parallel_end(ompt_data_t* parallel_data, ompt_data_t* /*encountering_task_data*/,
                     int /*flags*/, const void* /*codeptr_ra*/) {
  ThreadState* ts = tls_thread;
  if (ts == nullptr) return;
  std::uint64_t unmeasured_begin = 0;
  if (ts->encountered > 0) {
    --ts->encountered;
    if (ts->initial) g.initial_encountered.store(ts->encountered, std::memory_order_relaxed);
    if (ts->encountered < kMaxEncountered) {
      const ThreadState::Encountered& saved = ts->saved[ts->encountered];
      tls_context = saved.context;
      ts->current_region = saved.region;
      ts->current_index = saved.index;
      unmeasured_begin = saved.unmeasured_begin;
    }
  }
  const std::uint64_t value = parallel_data != nullptr ? parallel_data->value : 0;
  if (value == 0) return;
  const std::uint64_t now = stamp();
  if (is_unmeasured_tag(value)) {
    if (unmeasured_begin == 0) return;
    if (Region* region = region_by_id(tagged_region(value))) {
      region->all_wall_ticks.fetch_add(ticks_between(unmeasured_begin, now),
                                       std::memory_order_relaxed);
    }
    return;
  }
  auto& instance = *reinterpret_cast<Instance*>(value);
  if (ts->initial && ts->encountered == 0) {
    g.serial_start = now;
    g.serial_pending = true;
    g.serial_log2_weight = instance.record_region >> kRegionIdBits;
  }
  finish_instance(*ts, instance, now);
}

// A measured execution's implicit task begins on `ts` (thread `index` of the team): its context,
// or null when it is left unmeasured (beyond the team or nested too deep). `fresh`: the runtime
// started this thread for the execution.
TaskContext* join_instance(ThreadState& ts, Instance& instance, unsigned int index, bool fresh) {
  ts.current_region = instance.region;
  if (fresh) [[unlikely]]
    instance.team_started.store(true, std::memory_order_release);
  // A thread that encountered no region now is a worker starting afresh: contexts left on its
  // stack belong to executions whose late implicit-task end never came.
  if (ts.encountered == 0) ts.depth = 0;
  if (index >= instance.team || ts.depth >= kMaxMeasuredDepth) {
    g.unmeasured_tasks.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  flush_lock_sites(ts);  // counts of the enclosing context (a nested region's master)
  TaskContext& context = ts.contexts[ts.depth++];
  context = TaskContext{};
  context.thread = &ts;
  context.instance = &instance;
  context.slot = &instance.slots[index];
  context.generation = instance.generation.load(std::memory_order_relaxed);
  context.region = instance.record_region;
  context.region_ptr = region_by_id(instance.region);
  context.index = static_cast<std::uint16_t>(index);
  if (fresh || (index == 0 && instance.expect_start)) [[unlikely]]
    note_run_delay(*context.slot);
  context.slot->begin = stamp();
  instance.joined.fetch_add(1, std::memory_order_acq_rel);
  return &context;
}

void implicit_task_begin(ompt_data_t* parallel_data, ompt_data_t* task_data, unsigned int index) {
  const std::uint64_t value = parallel_data != nullptr ? parallel_data->value : 0;
  task_data->value = value;  // the unmeasured tag carries over; a measured one is replaced
  tls_context = nullptr;
  ThreadState* ts = tls_thread;
  if (ts == nullptr) return;
  ts->current_index = static_cast<std::uint16_t>(index);
  const bool fresh = ts->fresh;  // the runtime started this thread for this execution
  ts->fresh = false;
  if (value == 0) {
    ts->current_region = kNoRegion;
    return;
  }
  if (is_unmeasured_tag(value)) {
    ts->current_region = tagged_region(value);
    return;
  }
  auto& instance = *reinterpret_cast<Instance*>(value);
  TaskContext* context = join_instance(*ts, instance, index, fresh);
  if (context == nullptr) {
    task_data->value = unmeasured_tag(instance.region);
    return;
  }
  task_data->ptr = context;
  tls_context = context;
}

void implicit_task_end(ompt_data_t* task_data) {
  ThreadState* ts = tls_thread;
  const std::uint64_t value = task_data != nullptr ? task_data->value : 0;
  if (ts == nullptr || value == 0 || is_unmeasured_tag(value)) return;
  auto* context = static_cast<TaskContext*>(task_data->ptr);
  // The master's end comes before parallel end, while the instance runs; a worker's comes at the
  // next fork, when the instance may serve another execution already.
  if (context->index == 0) context->slot->task_end = stamp();
  flush_counts(*context);
  for (std::uint32_t i = 0; i < ts->depth; ++i) {
    if (&ts->contexts[i] == context) {
      ts->depth = i;
      break;
    }
  }
  tls_context = nullptr;
}

void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t* parallel_data,
                      ompt_data_t* task_data, unsigned int /*actual_parallelism*/,
                      unsigned int index, int flags) {
  if (endpoint != ompt_scope_begin) return implicit_task_end(task_data);
  if ((flags & ompt_task_initial) != 0) {
    task_data->value = 0;
    return;
  }
  implicit_task_begin(parallel_data, task_data, index);
}

// ----------------------------------------------------------------------------------------------
// Barriers.

// A taskwait or taskgroup end of the implicit task: the time it waited for its tasks without
// running any. Inside an explicit task its time is task time already.
[[gnu::noinline]] void task_wait(TaskContext& context, ompt_sync_region_t kind,
                                 ompt_scope_endpoint_t endpoint, const void* codeptr) {
  if (context.task_start != 0) return;
  if (endpoint == ompt_scope_begin) {
    context.last_site = kNoSite;
    context.taskwait_site =
        site(context, codeptr,
             kind == ompt_sync_region_taskwait ? SiteKind::kTaskwait : SiteKind::kTaskgroup);
    context.taskwait_begin = stamp();
    context.taskwait_task_ticks = 0;
    return;
  }
  if (context.taskwait_begin == 0) return;
  const std::uint64_t waited = ticks_between(context.taskwait_begin, stamp());
  append(*context.thread, RecordType::kTaskWait, context.region, context.index,
         wait_sub(kWaitTaskwait, context.taskwait_site),
         ticks_between(context.taskwait_task_ticks, waited), context.taskwait_task_ticks);
  context.taskwait_begin = 0;
}

void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                    ompt_data_t* parallel_data, ompt_data_t* /*task_data*/,
                    const void* codeptr_ra) {
  TaskContext* context = tls_context;
  if (context == nullptr) return;
  if (!is_barrier(kind)) {
    if (is_task_wait(kind)) return task_wait(*context, kind, endpoint, codeptr_ra);
    return;
  }
  if (endpoint == ompt_scope_begin) {
    // Counts first, so a worker's counts are written before its end-barrier arrival, which may
    // be its last event before the process exits.
    flush_counts(*context);
    // The barrier that directly follows a worksharing construct is that construct's (its
    // implicit barrier, or the region's end after its last loop); any other is a construct of
    // its own, the region's end barrier one for the whole team (libomp gives it the region's
    // code pointer on the master and none on the workers).
    std::uint8_t at = context->last_site;
    if (at == kNoSite) {
      const Region* region = context->region_ptr;
      const bool end = kind == ompt_sync_region_barrier_implicit_parallel ||
                       codeptr_ra == nullptr ||
                       (region != nullptr && codeptr_ra == region->codeptr);
      at = end ? site(*context, region != nullptr ? region->codeptr : nullptr, SiteKind::kEnd)
               : site(*context, codeptr_ra, SiteKind::kBarrier);
    }
    context->last_site = kNoSite;
    if (context->barriers == 0 && context->slot->measure_cpu_wait) [[unlikely]]
      note_run_delay_end(*context->slot);
    barrier_arrive(*context, sync::ticks(), at);
    return;
  }
  Instance& instance = *context->instance;
  // A worker's departure from the end barrier of an execution that ended: no stamp needed.
  if (instance.generation.load(std::memory_order_acquire) != context->generation) return;
  const std::uint64_t now = sync::ticks();
  if (parallel_data == nullptr) {  // leaving the end-of-parallel barrier
    if (context->index == 0) instance.end_departure = now;
    context->in_barrier = false;
    return;
  }
  barrier_depart(*context, now);
}

// ----------------------------------------------------------------------------------------------
// Locks: every acquisition counted, a sample timed.
//
// The acquired callback runs inside the critical section, where every instruction lengthens the
// section for each thread waiting for the lock: it only notes which lock is held (and stamps a
// timed acquisition). The acquisition is counted at its release, after the lock is free again,
// and a timed one written as a record then. (Counting at acquire cannot tell a failing
// omp_test_lock, which libomp 14 reports as a lock acquire without acquired, from a lock.)

// The record of a timed acquisition: its wait (acquire -> acquired) and, when `released` is
// not 0, its hold (acquired -> released). Out of line: one acquisition in hundreds is timed.
[[gnu::noinline]] void write_timed(TaskContext& context, std::uint64_t released) {
  append(*context.thread, RecordType::kLock, context.region, context.index, context.acquire_kind,
         reinterpret_cast<std::uintptr_t>(context.acquire_codeptr),
         lock_wait_field(ticks_between(context.acquire_stamp, context.held_stamp),
                         context.acquire_weight),
         released != 0 ? ticks_between(context.held_stamp, released) : 0);
  context.acquire_stamp = 0;
  context.held_stamp = 0;
}

// on_mutex_acquire() for a timed acquisition, or after a stale stamp.
[[gnu::noinline]] void acquire_slow_path(TaskContext& context, const void* codeptr_ra,
                                         ompt_mutex_t kind) {
  // A timed acquisition still held (another lock taken inside it) is written now, without its
  // hold; a timed omp_test_lock that failed got no acquired callback: its stamp is dropped.
  if (context.held_stamp != 0) write_timed(context, 0);
  context.acquire_stamp = 0;
  const std::uint64_t n = context.locks_seen++;
  if (n != context.next_timed) return;
  context.next_timed = g.lock_sampler.next_after(n);
  context.acquire_codeptr = codeptr_ra;
  context.acquire_kind = static_cast<std::uint8_t>(kind);
  context.acquire_weight = context.next_timed - n;
  context.acquire_stamp = sync::ticks();
}

void on_mutex_acquire(ompt_mutex_t kind, unsigned int /*hint*/, unsigned int /*impl*/,
                      ompt_wait_id_t /*wait_id*/, const void* codeptr_ra) {
  TaskContext* context = tls_context;
  if (context == nullptr) return;
  if (context->locks_seen == context->next_timed || context->acquire_stamp != 0) [[unlikely]]
    return acquire_slow_path(*context, codeptr_ra, kind);
  ++context->locks_seen;
}

// More locks held at once than the context notes: counted at once.
[[gnu::noinline]] void count_now(TaskContext& context, ompt_mutex_t kind, const void* codeptr_ra) {
  count_lock(context, codeptr_ra, static_cast<std::uint8_t>(kind));
}

// Inside the critical section: notes, nothing else.
void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void* codeptr_ra) {
  TaskContext* context = tls_context;
  if (context == nullptr) return;
  if (context->acquire_stamp != 0) [[unlikely]] {
    context->held_stamp = sync::ticks();
    context->held_wait_id = wait_id;
  }
  const std::uint32_t depth = context->held_count;
  if (depth == kHeldLocks) [[unlikely]]
    return count_now(*context, kind, codeptr_ra);
  context->held[depth] = {wait_id, codeptr_ra, static_cast<std::uint8_t>(kind)};
  context->held_count = depth + 1;
}

// A nest lock this thread owns already, acquired again (no acquired callback; its release is a
// nest_lock end, not a released callback): counted, and a timed one written, without its hold.
void on_nest_lock(ompt_scope_endpoint_t endpoint, ompt_wait_id_t /*wait_id*/,
                  const void* codeptr_ra) {
  TaskContext* context = tls_context;
  if (context == nullptr || endpoint != ompt_scope_begin) return;
  count_lock(*context, codeptr_ra, static_cast<std::uint8_t>(ompt_mutex_nest_lock));
  if (context->acquire_stamp == 0) return;
  context->held_stamp = sync::ticks();
  write_timed(*context, 0);
}

// The release of a lock this thread noted (the innermost first), out of line with its timed
// record when it was the timed one.
[[gnu::noinline]] void release_slow_path(TaskContext& context, ompt_wait_id_t wait_id,
                                         std::uint64_t now) {
  for (std::uint32_t i = context.held_count; i-- > 0;) {
    if (context.held[i].wait_id != wait_id) continue;
    const HeldLock held = context.held[i];
    for (std::uint32_t j = i + 1; j < context.held_count; ++j)
      context.held[j - 1] = context.held[j];
    --context.held_count;
    count_lock(context, held.codeptr, held.kind);
    break;
  }
  if (context.held_stamp != 0 && wait_id == context.held_wait_id) {
    write_timed(context, now != 0 ? now : sync::ticks());
  }
}

// After the lock is free again: the acquisition counted.
void on_mutex_released(ompt_mutex_t /*kind*/, ompt_wait_id_t wait_id, const void* /*codeptr_ra*/) {
  TaskContext* context = tls_context;
  if (context == nullptr) return;
  const std::uint32_t top = context->held_count;
  if (top != 0 && context->held_stamp == 0 && context->held[top - 1].wait_id == wait_id &&
      try_count_lock(*context, context->held[top - 1].codeptr, context->held[top - 1].kind)) {
    context->held_count = top - 1;
    return;
  }
  return release_slow_path(*context, wait_id, 0);
}

// ----------------------------------------------------------------------------------------------
// Tasks, worksharing, masked.

void on_task_create(ompt_data_t* /*encountering_task_data*/,
                    const ompt_frame_t* /*encountering_task_frame*/, ompt_data_t* new_task_data,
                    int flags, int /*has_dependences*/, const void* /*codeptr_ra*/) {
  TaskContext* context = tls_context;
  if (context == nullptr || (flags & ompt_task_explicit) == 0) return;
  ++context->tasks_created;
  new_task_data->value = kExplicitTaskMark;
}

// A switch between the implicit task and explicit ones: time from leaving the implicit task
// until coming back to it. Out of line (by tail call): most switches are between explicit tasks.
[[gnu::noinline]] void task_switch(TaskContext& context, bool to_explicit) {
  if (to_explicit) {
    context.task_start = sync::ticks();
    return;
  }
  if (context.task_start == 0) return;
  const std::uint64_t now = sync::ticks();
  const std::uint64_t ran = ticks_between(context.task_start, now);
  context.task_start = 0;
  context.task_ticks += ran;
  if (context.taskwait_begin != 0) context.taskwait_task_ticks += ran;
  if (context.in_barrier) {
    context.barrier_task_ticks += ran;
    context.barrier_task_end = now;
    if (context.instance->generation.load(std::memory_order_relaxed) == context.generation) {
      context.slot->arrival_task_ticks.store(context.barrier_task_ticks, std::memory_order_relaxed);
      context.slot->arrival_task_end.store(now, std::memory_order_relaxed);
    }
  }
}

void on_task_schedule(ompt_data_t* prior_task_data, ompt_task_status_t prior_task_status,
                      ompt_data_t* next_task_data) {
  TaskContext* context = tls_context;
  if (context == nullptr) return;
  const bool prior_explicit =
      prior_task_data != nullptr && prior_task_data->value == kExplicitTaskMark;
  const bool next_explicit =
      next_task_data != nullptr && next_task_data->value == kExplicitTaskMark;
  if (prior_explicit && prior_task_status == ompt_task_complete) ++context->tasks_completed;
  // Whether the thread runs an explicit task now, against what it ran: libomp starts an untied
  // task as implicit -> task, task -> implicit, task -> task, so the prior task does not say
  // (every such task's time was lost: a tree of 32,766 untied tasks had 0.3 us of task time).
  if (next_explicit != (context->task_start != 0)) [[unlikely]]
    return task_switch(*context, next_explicit);
}

// The run-sched-var a loop site runs with, asked of the runtime once, at the site's first
// execution: what a schedule(runtime) loop does (OMP_SCHEDULE, omp_set_schedule, or the
// runtime's default), which its code does not say.
void note_schedule(TaskContext& context) {
  if (g.get_schedule == nullptr || context.region_ptr == nullptr || context.last_site >= kMaxSites)
    return;
  std::atomic<std::uint64_t>& slot = context.region_ptr->site_schedules[context.last_site];
  if (slot.load(std::memory_order_relaxed) != 0) return;
  int kind = 0, chunk = 0;
  g.get_schedule(&kind, &chunk);
  slot.store(encode_schedule(kind, chunk), std::memory_order_relaxed);
}

// Every worksharing construct: its time on this thread, and its site, which the barrier that
// follows belongs to.
void on_work(ompt_work_t work_type, ompt_scope_endpoint_t endpoint, ompt_data_t* /*parallel_data*/,
             ompt_data_t* /*task_data*/, std::uint64_t count, const void* codeptr_ra) {
  TaskContext* context = tls_context;
  if (context == nullptr) return;
  // A single's executor and the threads that skip it are one construct.
  if (work_type == ompt_work_single_other) work_type = ompt_work_single_executor;
  if (endpoint == ompt_scope_begin) {
    context->last_site = kNoSite;
    context->work_begin = stamp();
    context->work_codeptr = codeptr_ra;  // the end's codeptr differs (libomp reports the fini)
    context->work_count = count;
    context->work_type = static_cast<std::uint8_t>(work_type);
    return;
  }
  if (context->work_begin == 0) return;
  append(*context->thread, RecordType::kLoop, context->region, context->index, context->work_type,
         reinterpret_cast<std::uintptr_t>(context->work_codeptr),
         ticks_between(context->work_begin, stamp()), context->work_count);
  context->work_begin = 0;
  context->last_site = site(*context, context->work_codeptr, context->work_type);
  if (context->work_type == ompt_work_loop) note_schedule(*context);
}

void on_masked(ompt_scope_endpoint_t endpoint, ompt_data_t* /*parallel_data*/,
               ompt_data_t* /*task_data*/, const void* /*codeptr_ra*/) {
  TaskContext* context = tls_context;
  if (context == nullptr) return;
  if (endpoint == ompt_scope_begin) {
    context->masked_begin = stamp();
  } else if (context->masked_begin != 0) {
    append(*context->thread, RecordType::kMasked, context->region, context->index, 0,
           ticks_between(context->masked_begin, stamp()));
    context->masked_begin = 0;
  }
}

template <typename Callback>
int set(ompt_set_callback_t set_callback, ompt_callbacks_t event, Callback callback) {
  return set_callback(event, reinterpret_cast<ompt_callback_t>(callback));
}

bool always(int result) {
  return result == ompt_set_always;
}

}  // namespace

bool register_callbacks(ompt_set_callback_t set_callback) {
  // Without these the per-execution decision cannot be carried to the team.
  const bool structural =
      always(set(set_callback, ompt_callback_thread_begin, on_thread_begin)) &&
      always(set(set_callback, ompt_callback_thread_end, on_thread_end)) &&
      always(set(set_callback, ompt_callback_parallel_begin, on_parallel_begin)) &&
      always(set(set_callback, ompt_callback_parallel_end, on_parallel_end)) &&
      always(set(set_callback, ompt_callback_implicit_task, on_implicit_task));
  if (!structural) return false;
  set(set_callback, ompt_callback_sync_region, on_sync_region);
  set(set_callback, ompt_callback_mutex_acquire, on_mutex_acquire);
  set(set_callback, ompt_callback_mutex_acquired, on_mutex_acquired);
  set(set_callback, ompt_callback_mutex_released, on_mutex_released);
  set(set_callback, ompt_callback_nest_lock, on_nest_lock);
  set(set_callback, ompt_callback_task_create, on_task_create);
  set(set_callback, ompt_callback_task_schedule, on_task_schedule);
  set(set_callback, ompt_callback_work, on_work);
  set(set_callback, ompt_callback_masked, on_masked);
  return true;
}

}  // namespace ompscale::regions::ompt

#pragma once
// Per-thread state: the record buffer, the contexts of the measured implicit tasks the thread is
// running, and what its callbacks carry from a begin to the matching end.
//
// A ThreadState is allocated at thread begin (outside any measured region) and reached through
// two initial-exec thread-local pointers, so the hot paths read one TLS slot:
//   tls_thread  - the thread's state (null on threads the runtime never announced);
//   tls_context - the measured implicit task the thread runs now, null when it runs none: every
//                 callback but the structural ones returns at once when it is null. It is set
//                 at implicit-task begin from the decision the master took at parallel begin,
//                 and restored at parallel end (a nested region's master).
//
// Buffers: appending a record is a store and a release of the size (the finalizer may read the
// buffer while the thread runs, when the application calls exit() inside a region). A full
// buffer is aggregated by its own thread under the aggregation lock (make_room, time counted in
// the profile); when aggregation is no longer possible (finalize began, or a fork() child) the
// record is dropped and counted. States are never freed: a thread's end retires its state for
// reuse by a later thread.

#include <atomic>
#include <cstdint>

#include "regions/ompt/record.h"

namespace ompscale::regions::ompt {

struct Instance;
struct ThreadSlot;
struct Region;
inline constexpr std::uint8_t kNoConstruct = 63;  // region_table.h: kNoSite
struct ThreadState;

inline constexpr std::uint32_t kBufferRecords = 8192;  // 256 KiB per thread
inline constexpr std::uint32_t kMaxMeasuredDepth = 8;  // measured implicit tasks nested per thread
inline constexpr std::uint32_t kMaxEncountered = 32;   // parallel regions nested per encountering
                                                       // thread
inline constexpr std::uint32_t kMaxManualDepth = 64;
inline constexpr std::uint32_t kLockSites = 16;  // direct-mapped per thread
inline constexpr std::uint32_t kNoRecord = ~0u;

// ompt_data_t values the tool stores in the runtime's parallel_data and task_data:
// - a measured execution: Instance* (parallel_data) and TaskContext* (implicit task_data);
// - an unmeasured one: its region id shifted left with the low bit set (both);
// - 0: no region (the table was full) or not the tool's;
// - an explicit task created inside a measured execution: kExplicitTaskMark.
inline constexpr std::uint64_t kExplicitTaskMark = 2;
constexpr std::uint64_t unmeasured_tag(std::uint32_t region) {
  return (static_cast<std::uint64_t>(region) << 1) | 1;
}
constexpr bool is_unmeasured_tag(std::uint64_t value) {
  return (value & 1) != 0;
}
constexpr std::uint32_t tagged_region(std::uint64_t value) {
  return static_cast<std::uint32_t>(value >> 1);
}

/// A lock acquired and not yet released: counted when it is (after the critical section).
struct HeldLock {
  std::uint64_t wait_id;
  const void* codeptr;
  std::uint8_t kind;  // ompt_mutex_t
};
inline constexpr std::uint32_t kHeldLocks = 4;

/// One measured implicit task of this thread.
struct TaskContext {
  ThreadState* thread = nullptr;
  Instance* instance = nullptr;
  ThreadSlot* slot = nullptr;
  std::uint32_t generation = 0;  // the instance's at implicit-task begin
  std::uint32_t region = 0;      // for records: the instance's record_region (id and weight)
  Region* region_ptr = nullptr;  // the region itself, for its construct sites
  // The site of the worksharing construct that ended last, until a barrier takes it (its
  // implicit barrier) or another construct begins.
  std::uint8_t last_site = kNoConstruct;
  std::uint8_t taskwait_site = kNoConstruct;
  std::uint16_t index = 0;  // thread number within the team
  bool in_barrier = false;
  std::uint32_t barriers = 0;            // arrivals so far: the next barrier's number
  std::uint64_t barrier_task_ticks = 0;  // explicit-task ticks inside the current barrier
  std::uint64_t barrier_task_end = 0;    // the last of them ended; 0 = none
  std::uint64_t taskwait_begin = 0;  // a taskwait or taskgroup end of the implicit task; 0 = none
  std::uint64_t taskwait_task_ticks = 0;  // explicit-task ticks inside it

  std::uint64_t locks_seen = 0;     // acquisitions, for the timing sampler
  std::uint64_t next_timed = 0;     // the acquisition to time next
  std::uint64_t acquire_stamp = 0;  // a timed acquisition, from acquire to its release; 0 = none
  const void* acquire_codeptr = nullptr;
  std::uint8_t acquire_kind = 0;
  std::uint64_t acquire_weight = 0;  // acquisitions the pending timed one stands for
  std::uint64_t held_stamp = 0;      // it was acquired (the lock is held) then; 0 = not yet
  std::uint64_t held_wait_id = 0;
  // Locks held now, innermost last, counted at their release (callbacks.cc).
  HeldLock held[kHeldLocks];
  std::uint32_t held_count = 0;

  std::uint64_t tasks_created = 0;
  std::uint64_t tasks_completed = 0;
  std::uint64_t task_ticks = 0;
  std::uint64_t task_start = 0;  // the implicit task switched to an explicit one; 0 = running

  std::uint64_t work_begin = 0;  // a worksharing construct waiting for its end; 0 = none
  const void* work_codeptr = nullptr;
  std::uint64_t work_count = 0;
  std::uint8_t work_type = 0;
  std::uint64_t masked_begin = 0;
};

/// Acquisitions counted at one code location since the site's last flush. Counts are atomics
/// only so the finalizer may read them while the owner runs (relaxed, no read-modify-write).
struct LockSite {
  const void* codeptr = nullptr;
  std::uint32_t region = 0;  // record_region()
  std::uint16_t thread = 0;
  std::uint8_t kind = 0;  // ompt_mutex_t; 0: empty
  std::atomic<std::uint64_t> count{0};
};

struct ThreadState {
  // The buffer: records [0, size) are complete.
  std::atomic<std::uint32_t> size{0};
  std::uint32_t epoch = 0;  // bumped when the buffer is emptied, invalidating remembered indices
  ThreadState* next = nullptr;  // registry
  bool retired = false;         // the thread ended; the state may be reused
  bool initial = false;         // the initial thread (serial time is measured on it)
  // The runtime started this thread and it has not yet begun an implicit task: its first one
  // belongs to an execution that waited for it to start (team start-up, instance.h).
  bool fresh = false;
  bool counted_worker = false;  // counted in Globals::workers_begun (until its thread ends)

  // Measured implicit tasks running on this thread, innermost last.
  std::uint32_t depth = 0;
  TaskContext contexts[kMaxMeasuredDepth];

  // The region and thread number of the implicit task running now, measured or not, for the
  // parent of regions first seen here and the thread number of manual regions.
  std::uint32_t current_region = 0xffffffffu;
  std::uint16_t current_index = 0;

  // What parallel begin replaced and parallel end restores, for regions this thread encounters.
  struct Encountered {
    TaskContext* context;
    std::uint32_t region;
    std::uint16_t index;
    std::uint64_t unmeasured_begin;  // parallel begin of an unmeasured execution; 0 otherwise
  };
  std::uint32_t encountered = 0;
  Encountered saved[kMaxEncountered];

  // Open manual regions, innermost last; `context` is current_region when it was opened.
  struct OpenManual {
    Region* region;
    std::uint32_t region_id;
    std::uint32_t context;
    std::uint64_t begin;
  };
  std::uint32_t manual_depth = 0;
  OpenManual manual[kMaxManualDepth];

  LockSite sites[kLockSites];
  std::uint32_t dirty_sites = 0;  // bit i: sites[i] has a count to flush

  Instance* free_instances = nullptr;  // pool of the executions this thread masters

  alignas(64) Record records[kBufferRecords];
};

extern constinit thread_local ThreadState* tls_thread __attribute__((tls_model("initial-exec")));
extern constinit thread_local TaskContext* tls_context __attribute__((tls_model("initial-exec")));

/// A state for a thread the runtime announced (a retired one when there is one). Null when out
/// of memory.
ThreadState* attach_thread(bool initial);

/// The calling thread's state, attaching one to a thread the runtime never announced (manual
/// regions on the application's own threads).
ThreadState* current_thread();

/// The thread ended: its buffer is aggregated and its state retired.
void detach_thread(ThreadState& ts);

/// The most recently attached state; the others follow through `next`.
ThreadState* first_thread();

/// Calls f(ThreadState&) for every state ever attached.
template <typename F>
void for_each_thread(F f) {
  for (ThreadState* ts = first_thread(); ts != nullptr; ts = ts->next) f(*ts);
}

/// Empties a full buffer (aggregation); returns the new size, kBufferRecords if it could not.
std::uint32_t make_room(ThreadState& ts);

/// Appends a record; returns its index, or kNoRecord when it was dropped.
inline std::uint32_t append(ThreadState& ts, RecordType type, std::uint32_t region,
                            std::uint16_t thread, std::uint8_t sub, std::uint64_t a,
                            std::uint64_t b = 0, std::uint64_t c = 0) {
  std::uint32_t n = ts.size.load(std::memory_order_relaxed);
  if (n == kBufferRecords) [[unlikely]] {
    n = make_room(ts);
    if (n == kBufferRecords) return kNoRecord;
  }
  Record& record = ts.records[n];
  record.a = a;
  record.b = b;
  record.c = c;
  record.region = region;
  record.thread = thread;
  record.type = type;
  record.sub = sub;
  ts.size.store(n + 1, std::memory_order_release);
  return n;
}

/// The parent of a region first seen on this thread: the innermost manual region opened inside
/// the current implicit task, else the region of that implicit task.
inline std::uint32_t parent_for_new_region(const ThreadState& ts) {
  if (ts.manual_depth > 0 && ts.manual_depth <= kMaxManualDepth) {
    const ThreadState::OpenManual& open = ts.manual[ts.manual_depth - 1];
    if (open.context == ts.current_region) return open.region_id;
  }
  return ts.current_region;
}

/// Writes a lock site's count as a record and zeroes it.
void flush_lock_site(ThreadState& ts, LockSite& site);

/// Counts one lock acquisition of `context` at (codeptr, kind): on every acquisition of a
/// measured execution, hence inline.
/// Flushes `site` and makes it (codeptr, kind) of `context`.
void install_lock_site(TaskContext& context, LockSite& site, const void* codeptr,
                       std::uint8_t kind);

inline std::uint32_t lock_site_index(const void* codeptr) {
  const auto address = reinterpret_cast<std::uintptr_t>(codeptr);
  return static_cast<std::uint32_t>((address ^ (address >> 7)) % kLockSites);
}

/// Counts the acquisition when its site is installed already (the common case, kept free of
/// calls so the callback needs no stack frame); false, counting nothing, otherwise.
inline bool try_count_lock(TaskContext& context, const void* codeptr, std::uint8_t kind) {
  ThreadState& ts = *context.thread;
  const std::uint32_t i = lock_site_index(codeptr);
  LockSite& site = ts.sites[i];
  // Sites are flushed and emptied (kind 0) whenever the thread's context changes, so (codeptr,
  // kind) identify a site of the current context.
  if (site.codeptr != codeptr || site.kind != kind) return false;
  site.count.store(site.count.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  ts.dirty_sites |= 1u << i;
  return true;
}

inline void count_lock(TaskContext& context, const void* codeptr, std::uint8_t kind) {
  if (try_count_lock(context, codeptr, kind)) return;
  install_lock_site(context, context.thread->sites[lock_site_index(codeptr)], codeptr, kind);
  try_count_lock(context, codeptr, kind);
}

/// Writes the pending lock-site counts as records.
void flush_lock_sites(ThreadState& ts);

/// Writes the pending lock-site counts and task counts as records (at barriers and task ends, so
/// the counts of a thread's region are written before the region's end is).
void flush_counts(TaskContext& context);

}  // namespace ompscale::regions::ompt

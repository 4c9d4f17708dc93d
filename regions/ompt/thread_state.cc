#include "regions/ompt/thread_state.h"

#include <bit>
#include <new>

#include "regions/ompt/aggregate.h"
#include "regions/ompt/globals.h"
#include "regions/ompt/instance.h"
#include "regions/ompt/region_table.h"
#include "sync/clock.h"

namespace ompscale::regions::ompt {

constinit thread_local ThreadState* tls_thread = nullptr;
constinit thread_local TaskContext* tls_context = nullptr;

namespace {

std::atomic<ThreadState*> registry{nullptr};

void register_state(ThreadState* ts) {
  ThreadState* head = registry.load(std::memory_order_relaxed);
  do {
    ts->next = head;
  } while (!registry.compare_exchange_weak(head, ts, std::memory_order_release,
                                           std::memory_order_relaxed));
}

// A retired state, reset for a new thread; null when none. Under the aggregation lock, which
// also keeps the finalizer from reading the state while it is reset.
ThreadState* reuse_retired() {
  if (g.stopped.load(std::memory_order_acquire)) return nullptr;
  g.aggregation_lock.lock();
  ThreadState* found = nullptr;
  for (ThreadState* ts = registry.load(std::memory_order_acquire); ts != nullptr; ts = ts->next) {
    if (ts->retired) {
      found = ts;
      found->retired = false;
      break;
    }
  }
  g.aggregation_lock.unlock();
  return found;
}

}  // namespace

ThreadState* first_thread() {
  return registry.load(std::memory_order_acquire);
}

ThreadState* attach_thread(bool initial) {
  ThreadState* ts = reuse_retired();
  if (ts == nullptr) {
    ts = new (std::nothrow) ThreadState;
    if (ts == nullptr) return nullptr;
    preallocate_instances(*ts);
    register_state(ts);
  }
  ts->initial = initial;
  ts->fresh = !initial;
  tls_thread = ts;
  tls_context = nullptr;
  return ts;
}

ThreadState* current_thread() {
  if (ThreadState* ts = tls_thread) return ts;
  return attach_thread(false);
}

void detach_thread(ThreadState& ts) {
  tls_thread = nullptr;
  tls_context = nullptr;
  if (g.stopped.load(std::memory_order_acquire)) return;  // finalize owns the buffers now
  g.aggregation_lock.lock();
  if (!g.stopped.load(std::memory_order_acquire)) {
    const std::uint32_t n = ts.size.load(std::memory_order_acquire);
    aggregate_records(ts.records, n);
    ts.size.store(0, std::memory_order_release);
    ++ts.epoch;
    for (LockSite& site : ts.sites) {
      site.count.store(0, std::memory_order_relaxed);
      site.kind = 0;
    }
    ts.dirty_sites = 0;
    ts.depth = 0;
    ts.encountered = 0;
    ts.manual_depth = 0;
    ts.current_region = kNoRegion;
    ts.retired = true;
  }
  g.aggregation_lock.unlock();
}

std::uint32_t make_room(ThreadState& ts) {
  if (g.stopped.load(std::memory_order_acquire)) {
    g.dropped_events.fetch_add(1, std::memory_order_relaxed);
    return kBufferRecords;
  }
  const std::uint64_t start = sync::ticks();
  g.aggregation_lock.lock();
  if (g.stopped.load(std::memory_order_acquire)) {
    g.aggregation_lock.unlock();
    g.dropped_events.fetch_add(1, std::memory_order_relaxed);
    return kBufferRecords;
  }
  aggregate_records(ts.records, ts.size.load(std::memory_order_relaxed));
  ts.size.store(0, std::memory_order_release);
  ++ts.epoch;
  g.aggregation_lock.unlock();
  g.buffer_full_events.fetch_add(1, std::memory_order_relaxed);
  g.aggregation_ticks.fetch_add(sync::ticks() - start, std::memory_order_relaxed);
  return 0;
}

void flush_lock_site(ThreadState& ts, LockSite& site) {
  const std::uint64_t count = site.count.load(std::memory_order_relaxed);
  if (count == 0) return;
  site.count.store(0, std::memory_order_relaxed);
  append(ts, RecordType::kLockCount, site.region, site.thread, site.kind,
         reinterpret_cast<std::uintptr_t>(site.codeptr), count);
}

void install_lock_site(TaskContext& context, LockSite& site, const void* codeptr,
                       std::uint8_t kind) {
  flush_lock_site(*context.thread, site);
  site.codeptr = codeptr;
  site.kind = kind;
  site.region = context.region;
  site.thread = context.index;
}

void flush_lock_sites(ThreadState& ts) {
  for (std::uint32_t dirty = ts.dirty_sites; dirty != 0; dirty &= dirty - 1) {
    LockSite& site = ts.sites[std::countr_zero(dirty)];
    flush_lock_site(ts, site);
    site.kind = 0;  // no mutex kind: the next context's first acquisition installs its own key
  }
  ts.dirty_sites = 0;
}

void flush_counts(TaskContext& context) {
  ThreadState& ts = *context.thread;
  // Locks still held (across a barrier, or of a kind whose release is not reported) are
  // counted now, so counts are written before the region's end is.
  for (std::uint32_t i = 0; i < context.held_count; ++i) {
    count_lock(context, context.held[i].codeptr, context.held[i].kind);
  }
  context.held_count = 0;
  flush_lock_sites(ts);
  if (context.tasks_created != 0 || context.tasks_completed != 0 || context.task_ticks != 0) {
    append(ts, RecordType::kTasks, context.region, context.index, 0, context.tasks_created,
           context.tasks_completed, context.task_ticks);
    context.tasks_created = context.tasks_completed = context.task_ticks = 0;
  }
}

}  // namespace ompscale::regions::ompt

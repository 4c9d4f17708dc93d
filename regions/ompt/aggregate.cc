#include "regions/ompt/aggregate.h"

#include <omp-tools.h>

#include <algorithm>
#include <new>

#include "regions/ompt/region_table.h"

namespace ompscale::regions::ompt {
namespace {

RegionStats* serial_end = nullptr;  // under the aggregation lock, never freed

RegionStats* stats_for(std::uint32_t id) {
  if (id == kSerialEndRegion) {
    if (serial_end == nullptr) serial_end = new (std::nothrow) RegionStats;
    return serial_end;
  }
  Region* region = region_by_id(id);
  if (region == nullptr) return nullptr;
  if (region->stats == nullptr) region->stats = new (std::nothrow) RegionStats;
  return region->stats;
}

ThreadStats* thread_stats(RegionStats& stats, std::uint16_t thread) {
  if (thread >= stats.threads.size()) stats.threads.resize(thread + 1u);
  return &stats.threads[thread];
}

LockStats& lock_stats(RegionStats& stats, std::uint64_t codeptr, std::uint8_t kind) {
  const auto* address = reinterpret_cast<const void*>(codeptr);
  const std::uint8_t family = lock_kind_family(kind);
  for (LockStats& lock : stats.locks) {
    if (lock.codeptr == address && lock.kind == family) return lock;
  }
  LockStats& lock = stats.locks.emplace_back();
  lock.codeptr = address;
  lock.kind = family;
  return lock;
}

LoopStats::PerThread& loop_stats(RegionStats& stats, std::uint64_t codeptr, std::uint8_t type,
                                 std::uint16_t thread) {
  const auto* address = reinterpret_cast<const void*>(codeptr);
  LoopStats* loop = nullptr;
  for (LoopStats& known : stats.loops) {
    if (known.codeptr == address && known.type == type) loop = &known;
  }
  if (loop == nullptr) {
    loop = &stats.loops.emplace_back();
    loop->codeptr = address;
    loop->type = type;
  }
  if (thread >= loop->threads.size()) loop->threads.resize(thread + 1u);
  return loop->threads[thread];
}

// w (w - 1) y^2: one measured execution's term of the Horvitz-Thompson variance estimate.
double variance_term(std::uint64_t w, std::uint64_t y) {
  const double value = static_cast<double>(y);
  return static_cast<double>(w) * static_cast<double>(w - 1) * value * value;
}

SiteStats::PerThread* site_stats(RegionStats& stats, std::uint8_t sub, std::uint16_t thread) {
  const std::uint8_t site = site_in(sub);
  if (site >= kMaxSites) return nullptr;
  if (site >= stats.sites.size()) stats.sites.resize(site + 1u);
  SiteStats& s = stats.sites[site];
  if (wait_of(sub) == kWaitEndBarrier) ++s.end_barriers;
  if (thread >= s.threads.size()) s.threads.resize(thread + 1u);
  return &s.threads[thread];
}

// The construct site's share of a barrier or task_wait record.
void add_site_record(RegionStats& stats, const Record& r, std::uint64_t w) {
  SiteStats::PerThread* site = site_stats(stats, r.sub, r.thread);
  if (site == nullptr) return;
  if (r.type == RecordType::kBarrier) {
    site->barriers += w;
    site->imbalance_ticks += w * r.a;
    site->walkthrough_ticks += w * r.b;
    site->startup_ticks += w * r.c;
  } else {
    site->task_wait_ticks += w * r.a;
    site->task_ticks += w * r.b;
  }
}

void add_thread_record(RegionStats& stats, const Record& r, std::uint64_t w) {
  ThreadStats& t = *thread_stats(stats, r.thread);
  switch (r.type) {
    case RecordType::kSpan:
      ++t.executions;
      t.span_ticks += w * r.a;
      t.fork_ticks += w * r.b;
      t.end_task_ticks += w * r.c;
      return;
    case RecordType::kBarrier:
      t.barriers += w;
      t.imbalance_ticks += w * r.a;
      t.walkthrough_ticks += w * r.b;
      t.startup_ticks += w * r.c;
      if (wait_of(r.sub) == kWaitInnerBarrier) t.inner_barrier_ticks += w * (r.a + r.b + r.c);
      return add_site_record(stats, r, w);
    case RecordType::kTaskWait:
      if (wait_of(r.sub) == kWaitTaskwait) {
        t.taskwait_ticks += w * r.a;
        return add_site_record(stats, r, w);
      }
      t.task_wait_ticks += w * r.a;
      t.barrier_task_ticks += w * r.b;
      if (wait_of(r.sub) == kWaitInnerBarrier) t.inner_barrier_ticks += w * r.a;
      return add_site_record(stats, r, w);
    case RecordType::kTasks:
      t.tasks_created += w * r.a;
      t.tasks_completed += w * r.b;
      t.task_ticks += w * r.c;
      return;
    case RecordType::kTeamStart:
      t.team_start_ticks += w * r.a;
      if (r.sub == kWaitInnerBarrier) t.inner_barrier_ticks += w * r.a;   // inside the span
      if (r.sub == kTeamStartCpuWait) t.start_cpu_wait_ticks += w * r.a;  // inside it too
      return;
    case RecordType::kMasked:
      t.masked_executions += w;
      t.masked_ticks += w * r.a;
      return;
    case RecordType::kManual:
      ++t.manual_executions;
      t.manual_ticks += r.a;
      return;
    default:
      return;
  }
}

void add_lock_record(RegionStats& stats, const Record& r, std::uint64_t w) {
  if (r.type == RecordType::kLockCount) {
    lock_stats(stats, r.a, r.sub).acquisitions += w * r.b;
    thread_stats(stats, r.thread)->lock_acquisitions += w * r.b;
    return;
  }
  const std::uint64_t wait = lock_wait_ticks(r.b);
  const auto weighted = static_cast<double>(w * lock_weight(r.b) * wait);
  LockStats& lock = lock_stats(stats, r.a, r.sub);
  ++lock.timed;
  lock.wait_ticks += wait;
  lock.wait_estimate_ticks += weighted;
  lock.fastest_ticks = std::min(lock.fastest_ticks, wait);
  if (r.c != 0) {
    lock.hold_ticks += r.c;
    ++lock.hold_timed;
  }
  ThreadStats& t = *thread_stats(stats, r.thread);
  ++t.lock_timed;
  t.lock_wait_ticks += wait;
  t.lock_wait_estimate_ticks += weighted;
}

void add(RegionStats& stats, const Record& r) {
  const std::uint64_t w = weight_of(r.region);
  switch (r.type) {
    case RecordType::kInstance: {
      ++stats.measured;
      stats.wall_ticks += w * r.a;
      stats.estimated_executions += w;
      stats.split.add(
          w, static_cast<double>(r.a),
          static_cast<double>(r.c) / static_cast<double>(std::max<std::uint64_t>(r.b, 1)));
      stats.team_min = std::min(stats.team_min, static_cast<std::uint32_t>(r.b));
      stats.team_max = std::max(stats.team_max, static_cast<std::uint32_t>(r.b));
      return;
    }
    case RecordType::kLock:
    case RecordType::kLockCount:
      return add_lock_record(stats, r, w);
    case RecordType::kLoop: {
      LoopStats::PerThread& loop = loop_stats(stats, r.a, r.sub, r.thread);
      loop.executions += w;
      loop.ticks += w * r.b;
      loop.iterations += w * r.c;
      return;
    }
    case RecordType::kSerial:
      ++stats.serial_measured;
      stats.serial_ticks += w * r.a;
      stats.serial_variance += variance_term(w, r.a);
      return;
    default:
      return add_thread_record(stats, r, w);
  }
}

}  // namespace

std::uint8_t lock_kind_family(std::uint8_t kind) {
  if (kind == ompt_mutex_test_lock) return ompt_mutex_lock;
  if (kind == ompt_mutex_test_nest_lock) return ompt_mutex_nest_lock;
  return kind;
}

void aggregate_records(const Record* records, std::uint32_t n) {
  try {
    for (std::uint32_t i = 0; i < n; ++i) {
      if (RegionStats* stats = stats_for(region_id_of(records[i].region))) {
        add(*stats, records[i]);
      }
    }
  } catch (...) {
    // Out of memory growing a vector: the remaining records are lost, the process goes on.
  }
}

const RegionStats* region_stats(std::uint32_t region) {
  if (region == kSerialEndRegion) return serial_end;
  const Region* r = region_by_id(region);
  return r != nullptr ? r->stats : nullptr;
}

const RegionStats* serial_end_stats() {
  return serial_end;
}

}  // namespace ompscale::regions::ompt

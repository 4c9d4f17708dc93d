#pragma once
// The regions of the profile: parallel regions keyed by codeptr_ra, manual regions keyed by
// name. Insert-only and lock-free (a fixed open-addressing table whose keys are claimed with a
// CAS), so parallel begin can look a region up from any thread without a lock; a Region, once
// created, lives until the process ends (never freed: finalize runs after static destructors).
//
// Ids are dense, in order of creation, and index region_by_id(). Past kMaxRegions, lookups fail
// and the caller leaves the execution unmeasured (counted in regions_dropped()).

#include <atomic>
#include <cstdint>
#include <string>

#include "regions/ompt/code_location.h"
#include "regions/region_kind.h"

namespace ompscale::regions::ompt {

inline constexpr std::uint32_t kNoRegion = 0xffffffffu;
/// The region of SERIAL records for the master's time from the last parallel region to finalize.
inline constexpr std::uint32_t kSerialEndRegion = 0x00fffffeu;  // fits a record (record.h)
inline constexpr std::uint32_t kMaxRegions = 4096;

struct RegionStats;  // aggregate.h

/// The constructs inside a parallel region the profile gives rows of their own: worksharing
/// constructs (with the barrier that ends them), standalone barriers, taskwaits and taskgroups,
/// and the region's end barrier when no construct directly precedes it.
enum class SiteKind : std::uint8_t {
  kLoop = 1,  // ompt_work_t values 1..8 follow, as reported
  kBarrier = 9,
  kTaskwait = 10,
  kTaskgroup = 11,
  kEnd = 12,
};
/// Sites per region: indices 0..kMaxSites-1 fit 6 bits of a record's sub (record.h);
/// kNoSite marks a barrier or wait not attributed (the table was full).
inline constexpr std::uint8_t kMaxSites = 63;
inline constexpr std::uint8_t kNoSite = 63;

/// A site's key: its code pointer (below 2^56) and kind in one word, 0 for a free entry.
constexpr std::uint64_t site_key(const void* codeptr, std::uint8_t kind) {
  return (static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(codeptr)) << 8) | kind;
}

struct Region {
  // Written on every execution, so away from the read-mostly fields.
  alignas(64) std::atomic<std::uint64_t> executions{0};  // begins (parallel: the sampling count)
  std::atomic<std::uint64_t> serial_executions{0};  // initial-thread outermost begins (the gaps)
  std::atomic<std::uint64_t> ends{0};               // manual regions: ends matched to a begin
  // Every execution's wall time, measured or not (parallel begin -> end on its master): the
  // total the sampled executions' sums are calibrated to (sampling.h).
  std::atomic<std::uint64_t> all_wall_ticks{0};
  // Parallel regions' sampling (sampling.h), kept by the masters of measured executions (moving
  // averages): the mean wall time of the measured executions, the mean time per thread of their
  // teams not working, the second moment of that time's departure from its share of the wall
  // time over the squared mean wall time, and the period now in use.
  std::atomic<std::uint64_t> mean_wall_ticks{0};
  std::atomic<double> mean_idle_ticks{0.0};
  std::atomic<double> residual_second_moment{0.0};
  std::atomic<std::uint32_t> log2_period{0};

  alignas(64) std::uint32_t id = 0;
  RegionKind kind = RegionKind::kParallel;
  std::uint32_t parent = kNoRegion;  // the enclosing region when first seen
  std::uint32_t level = 0;           // 0 = outermost
  const void* codeptr = nullptr;     // parallel regions
  const char* name = nullptr;        // manual regions (a copy)
  CodeLocation* location = nullptr;  // captured at creation; null when no object holds codeptr

  RegionStats* stats = nullptr;  // owned by the aggregation (aggregate.h), under its lock

  // Construct sites inside the region, in order of first sight; insert-only (site_of()).
  std::atomic<std::uint64_t> sites[kMaxSites] = {};
  // A loop site's run-sched-var at its first execution (encode_schedule()); 0: not known.
  std::atomic<std::uint64_t> site_schedules[kMaxSites] = {};
};

/// The runtime's schedule kind (omp_sched_t, the monotonic modifier bit dropped) and chunk in one
/// word that is never 0.
constexpr std::uint64_t encode_schedule(int kind, int chunk) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(kind) & 0x7fffffffu) << 32) |
         static_cast<std::uint32_t>(chunk < 0 ? 0 : chunk) | (1ull << 63);
}

/// "static", "dynamic,1", "guided,4", "auto": the words OMP_SCHEDULE takes for an encoded
/// schedule; "" for 0 or a kind the OpenMP spec does not name.
std::string schedule_text(std::uint64_t encoded);

/// The index of the site (codeptr, kind) inside `region`, added on first sight; kNoSite when
/// the table is full. Lock-free: any thread of the team may add a site.
std::uint8_t site_of(Region& region, const void* codeptr, std::uint8_t kind);

/// The parallel region of `codeptr`, created with `parent` (kNoRegion for none) on first sight.
Region* find_parallel_region(const void* codeptr, std::uint32_t parent);

/// The manual region named `name`, created with `parent` on first sight.
Region* find_manual_region(const char* name, std::uint32_t parent);

/// The region with this id, or null.
Region* region_by_id(std::uint32_t id);

/// Number of ids handed out (ids are 0 .. region_count() - 1).
std::uint32_t region_count();

/// Lookups that failed because the table was full.
std::uint64_t regions_dropped();

}  // namespace ompscale::regions::ompt

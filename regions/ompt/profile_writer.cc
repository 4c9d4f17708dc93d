#include "regions/ompt/profile_writer.h"

#include <fcntl.h>
#include <omp-tools.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "regions/ompt/aggregate.h"
#include "regions/ompt/calibrate.h"
#include "regions/ompt/globals.h"
#include "regions/ompt/loop_schedule.h"
#include "regions/ompt/region_table.h"
#include "regions/ompt/symbolizer_plugin.h"
#include "regions/ompt/thread_state.h"
#include "sync/clock.h"

// Fields added to docs/ompscan-formats.md's profile (readers ignore unknown fields):
// - top level: "pid", "omp_version", "locations_unresolved" (why the tool could not add source
//   lines itself); clock "tsc_invariant"; sampling
//   "lock_always_first", "lock_per_doubling", "lock_max_period", "aggregation_ns",
//   "unmeasured_no_memory", "unmeasured_tasks", "regions_dropped", "manual_unmatched".
// - REGION: "serial": {"before": id} for serial regions ("before": null for the gap before
//   finalize); "masked": {"executions", "ns"} when masked constructs ran.
// - threads[]: "executions" (measured executions the thread took part in), "task_ns" (time in
//   explicit tasks, included in work_ns); for manual regions "executions" and "work_ns" only.
// - threads[]: "lock_wait_estimate_ns" (see locks[]).
// - threads[]: "barrier_task_ns" (explicit tasks run inside barriers, part of task_ns),
//   "task_wait_ns" (barriers waiting for the team's last tasks after the last arrival, without
//   running one), "taskwait_ns" (taskwaits and taskgroup ends of the implicit task not running a
//   task), "tasks_created" (explicit tasks this thread created).
// - threads[]: "team_start_ns" (executions in which the runtime started threads: the thread's
//   wait for them, its fork and its wait at the first barrier, counted here instead of in
//   fork_ns and imbalance_ns); of it, "start_cpu_wait_ns": its wait for a CPU before the first
//   barrier (run delay: a new thread sharing a CPU until the kernel moves it; not in work_ns).
// - constructs[].threads[]: "iterations" (the runtime's work counts, summed: libomp reports a
//   loop's trip count to every thread).
// - locks[]: "hold_ns", "hold_timed" (acquired -> released of timed acquisitions);
//   "wait_estimate_ns": the wait of all acquisitions, each timed wait weighted by the number of
//   acquisitions it stood for (up to the next timed one). Timing is not uniform (all early
//   acquisitions of an execution, later ones sparsely), so this, not wait_ns * acquisitions /
//   timed, is the unbiased total; likewise contention = wait_estimate_ns - acquisitions *
//   fastest_ns.
// - loops[]: "construct" ("loop" | "taskloop"), "codeptr", "location", "iterations" (the
//   runtime's work counts summed over executions: libomp reports each loop's total trip count,
//   not a thread's share, so per-thread "iterations" stay absent).

namespace ompscale::regions::ompt {
namespace {

using Json = nlohmann::ordered_json;

std::uint64_t ns(std::uint64_t ticks) {
  return static_cast<std::uint64_t>(std::llround(sync::ticks_to_ns(static_cast<double>(ticks))));
}

std::string hex(std::uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof(text), "0x%" PRIx64, value);
  return text;
}

std::string hex(const void* address) {
  return hex(static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(address)));
}

const char* lock_kind_name(std::uint8_t kind) {
  switch (kind) {
    case ompt_mutex_lock:
    case ompt_mutex_test_lock:
      return "lock";
    case ompt_mutex_nest_lock:
    case ompt_mutex_test_nest_lock:
      return "nest_lock";
    case ompt_mutex_critical:
      return "critical";
    case ompt_mutex_atomic:
      return "atomic";
    case ompt_mutex_ordered:
      return "ordered";
    default:
      return "unknown";
  }
}

// Code locations of every code pointer the profile names, captured before the JSON is built
// (regions captured theirs at creation, lock sites and loops are captured now) and resolved in
// one pass over their modules' debug info.
class Locations {
 public:
  void add(const void* codeptr, CodeLocation* captured) {
    if (captured != nullptr && by_codeptr_.emplace(codeptr, captured).second) {
      all_.push_back(captured);
    }
  }
  void capture(const void* codeptr) {
    if (by_codeptr_.count(codeptr) != 0) return;
    auto location = std::make_unique<CodeLocation>();
    if (!capture_code_location(codeptr, *location)) {
      by_codeptr_.emplace(codeptr, nullptr);
      return;
    }
    add(codeptr, location.get());
    owned_.push_back(std::move(location));
  }
  // "" when resolved, else why not (symbolizer_plugin.h).
  std::string resolve() { return resolve_with_symbolizer(all_); }
  const CodeLocation* find(const void* codeptr) const {
    const auto found = by_codeptr_.find(codeptr);
    return found != by_codeptr_.end() ? found->second : nullptr;
  }

 private:
  std::map<const void*, CodeLocation*> by_codeptr_;
  std::vector<CodeLocation*> all_;
  std::vector<std::unique_ptr<CodeLocation>> owned_;
};

Json location_json(const CodeLocation& location) {
  Json json = {{"module", location.module},
               {"build_id", location.build_id},
               {"offset", hex(location.offset)}};
  if (!location.file.empty()) json["file"] = location.file;
  if (location.line > 0) json["line"] = location.line;
  if (!location.function.empty()) json["function"] = location.function;
  return json;
}

Json parent_json(const Region& region) {
  return region.parent == kNoRegion ? Json(nullptr) : Json(region.parent);
}

// Work: the span minus barrier phases and task waits inside it, idle taskwaits, a starting
// team's wait for a CPU and the estimated lock waiting, plus explicit tasks run in the end
// barrier (outside the span).
std::uint64_t work_ticks(const ThreadStats& t) {
  const double work =
      static_cast<double>(t.span_ticks) -
      static_cast<double>(t.inner_barrier_ticks + t.taskwait_ticks + t.start_cpu_wait_ticks) -
      t.lock_wait_estimate_ticks + static_cast<double>(t.end_task_ticks);
  return work > 0 ? static_cast<std::uint64_t>(work) : 0;
}

std::uint64_t ns(double ticks) {
  return static_cast<std::uint64_t>(std::llround(sync::ticks_to_ns(ticks)));
}

Json parallel_threads(const RegionStats& stats) {
  Json threads = Json::array();
  for (std::size_t i = 0; i < stats.threads.size(); ++i) {
    const ThreadStats& t = stats.threads[i];
    if (t.executions == 0 && t.barriers == 0 && t.lock_acquisitions == 0 && t.lock_timed == 0) {
      continue;
    }
    threads.push_back({{"thread", i},
                       {"executions", t.executions},
                       {"work_ns", ns(work_ticks(t))},
                       {"fork_ns", ns(t.fork_ticks)},
                       {"team_start_ns", ns(t.team_start_ticks)},
                       {"start_cpu_wait_ns", ns(t.start_cpu_wait_ticks)},
                       {"imbalance_ns", ns(t.imbalance_ticks)},
                       {"walkthrough_ns", ns(t.walkthrough_ticks)},
                       {"startup_ns", ns(t.startup_ticks)},
                       {"barriers", t.barriers},
                       {"lock_wait_ns", ns(t.lock_wait_ticks)},
                       {"lock_acquisitions", std::max(t.lock_acquisitions, t.lock_timed)},
                       {"lock_timed", t.lock_timed},
                       {"lock_wait_estimate_ns", ns(t.lock_wait_estimate_ticks)},
                       {"task_ns", ns(t.task_ticks)},
                       {"barrier_task_ns", ns(t.barrier_task_ticks)},
                       {"task_wait_ns", ns(t.task_wait_ticks)},
                       {"taskwait_ns", ns(t.taskwait_ticks)},
                       {"tasks_created", t.tasks_created}});
  }
  return threads;
}

// The run-sched-var the loop site at `codeptr` ran with at its first execution (callbacks.cc:
// note_schedule), in OMP_SCHEDULE's words; "" when not known.
std::string site_schedule(const Region& region, const void* codeptr) {
  const std::uint64_t key = site_key(codeptr, ompt_work_loop);
  for (std::uint8_t i = 0; i < kMaxSites; ++i) {
    const std::uint64_t seen = region.sites[i].load(std::memory_order_acquire);
    if (seen == 0) break;
    if (seen == key) return schedule_text(region.site_schedules[i].load(std::memory_order_relaxed));
  }
  return "";
}

// A schedule as OMP_SCHEDULE or schedule_text() writes it, in schedule_text()'s form: "dynamic,4"
// for "nonmonotonic:DYNAMIC, 4", "guided" for "GUIDED" (no modifier, no spaces, lower case).
std::string normalized_schedule(std::string_view text) {
  if (const auto colon = text.find(':'); colon != std::string_view::npos)
    text.remove_prefix(colon + 1);
  std::string out;
  for (char c : text) {
    if (!std::isspace(static_cast<unsigned char>(c)))
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

// Whether OMP_SCHEDULE's `environment` names the schedule the loop ran with: its kind, and its
// chunk when it names one (without, the runtime picks the kind's default chunk).
bool environment_names(std::string_view environment, const std::string& ran) {
  const std::string named = normalized_schedule(environment);
  if (named.find(',') != std::string::npos) return named == ran;
  return named == ran.substr(0, ran.find(','));
}

// "schedule" (loop_schedule.h), "chunk" when the call passes a known one, and for a
// schedule(runtime) loop "omp_schedule": the schedule it ran with, and "omp_schedule_source":
// "OMP_SCHEDULE" when the environment named it, "program" when the environment named another
// (the program's omp_set_schedule overrode it), "program or runtime default" when the
// environment named none; without what it ran with, the process's OMP_SCHEDULE when set.
void add_schedule(Json& entry, const Region& region, const void* codeptr) {
  const LoopSchedule schedule = loop_schedule_of(codeptr);
  entry["schedule"] = schedule.schedule;
  if (schedule.chunk != 0) entry["chunk"] = schedule.chunk;
  if (std::strcmp(schedule.schedule, "runtime") != 0) return;
  const char* environment = std::getenv("OMP_SCHEDULE");
  if (const std::string ran = site_schedule(region, codeptr); !ran.empty()) {
    entry["omp_schedule"] = ran;
    entry["omp_schedule_source"] = environment == nullptr ? "program or runtime default"
                                   : environment_names(environment, ran) ? "OMP_SCHEDULE"
                                                                         : "program";
  } else if (environment != nullptr) {
    entry["omp_schedule"] = normalized_schedule(environment);
    entry["omp_schedule_source"] = "OMP_SCHEDULE";
  }
}

const char* site_kind_name(std::uint8_t kind) {
  switch (kind) {
    case ompt_work_loop:
      return "loop";
    case ompt_work_sections:
      return "sections";
    case ompt_work_single_executor:
      return "single";
    case ompt_work_workshare:
      return "workshare";
    case ompt_work_distribute:
      return "distribute";
    case ompt_work_taskloop:
      return "taskloop";
    case ompt_work_scope:
      return "scope";
    case static_cast<std::uint8_t>(SiteKind::kBarrier):
      return "barrier";
    case static_cast<std::uint8_t>(SiteKind::kTaskwait):
      return "taskwait";
    case static_cast<std::uint8_t>(SiteKind::kTaskgroup):
      return "taskgroup";
    case static_cast<std::uint8_t>(SiteKind::kEnd):
      return "end";
    default:
      return "unknown";
  }
}

// One row per construct site of the region, each thread's time in it and in its barrier.
Json constructs_json(const Region& region, const RegionStats& s, const Locations& locations) {
  Json constructs = Json::array();
  for (std::uint8_t i = 0; i < kMaxSites; ++i) {
    const std::uint64_t key = region.sites[i].load(std::memory_order_acquire);
    if (key == 0) break;
    const auto kind = static_cast<std::uint8_t>(key & 0xff);
    const auto* codeptr = reinterpret_cast<const void*>(static_cast<std::uintptr_t>(key >> 8));
    const LoopStats* work = nullptr;
    for (const LoopStats& loop : s.loops) {
      if (loop.codeptr == codeptr && loop.type == kind) work = &loop;
    }
    const SiteStats* site = i < s.sites.size() ? &s.sites[i] : nullptr;
    Json entry = {{"site", i}, {"kind", site_kind_name(kind)}, {"codeptr", hex(codeptr)}};
    if (const CodeLocation* location = locations.find(codeptr)) {
      entry["location"] = location_json(*location);
    }
    if (kind == ompt_work_loop) add_schedule(entry, region, codeptr);
    Json threads = Json::array();
    const std::size_t count = std::max(work != nullptr ? work->threads.size() : 0,
                                       site != nullptr ? site->threads.size() : 0);
    for (std::size_t t = 0; t < count; ++t) {
      const LoopStats::PerThread none_work;
      const SiteStats::PerThread none_site;
      const auto& w = work != nullptr && t < work->threads.size() ? work->threads[t] : none_work;
      const auto& b = site != nullptr && t < site->threads.size() ? site->threads[t] : none_site;
      if (w.executions == 0 && b.barriers == 0 && b.task_wait_ticks == 0) continue;
      threads.push_back({{"thread", t},
                         {"executions", w.executions},
                         {"iterations", w.iterations},
                         {"time_ns", ns(w.ticks)},
                         {"barriers", b.barriers},
                         {"imbalance_ns", ns(b.imbalance_ticks)},
                         {"walkthrough_ns", ns(b.walkthrough_ticks)},
                         {"startup_ns", ns(b.startup_ticks)},
                         {"task_wait_ns", ns(b.task_wait_ticks)},
                         {"task_ns", ns(b.task_ticks)}});
    }
    entry["end_barriers"] = site != nullptr ? site->end_barriers : 0;
    entry["threads"] = std::move(threads);
    constructs.push_back(std::move(entry));
  }
  return constructs;
}

Json parallel_region(const Region& region, const RegionStats* stats, const Locations& locations) {
  Json out = {
      {"id", region.id}, {"kind", "parallel"}, {"name", ""}, {"codeptr", hex(region.codeptr)}};
  if (region.location != nullptr) out["location"] = location_json(*region.location);
  out["parent"] = parent_json(region);
  out["nesting_level"] = region.level;
  out["executions"] = region.executions.load(std::memory_order_relaxed);
  const RegionStats s = calibrated(stats != nullptr ? *stats : RegionStats{},
                                   region.all_wall_ticks.load(std::memory_order_relaxed),
                                   region.executions.load(std::memory_order_relaxed));
  out["executions_measured"] = s.measured;
  if (s.measured > 0) out["team_size"] = {{"min", s.team_min}, {"max", s.team_max}};
  out["wall_ns"] = ns(s.wall_ticks);
  out["executions_estimated"] = s.estimated_executions;
  out["wall_se_ns"] = 0;  // exact: every execution's time is summed (calibrate.h)
  if (s.measured > 0) {
    out["idle_ns"] = ns(s.split.idle * s.calibration);
    out["idle_se_ns"] = ns(std::sqrt(s.split.variance(s.calibration)));
  }
  out["threads"] = parallel_threads(s);

  Json locks = Json::array();
  for (const LockStats& lock : s.locks) {
    Json entry = {{"kind", lock_kind_name(lock.kind)}, {"codeptr", hex(lock.codeptr)}};
    if (const CodeLocation* location = locations.find(lock.codeptr)) {
      entry["location"] = location_json(*location);
    }
    entry["acquisitions"] = std::max(lock.acquisitions, lock.timed);
    entry["timed"] = lock.timed;
    entry["wait_ns"] = ns(lock.wait_ticks);
    entry["wait_estimate_ns"] = ns(lock.wait_estimate_ticks);
    if (lock.timed > 0) entry["fastest_ns"] = ns(lock.fastest_ticks);
    entry["hold_ns"] = ns(lock.hold_ticks);
    entry["hold_timed"] = lock.hold_timed;
    locks.push_back(std::move(entry));
  }
  out["locks"] = std::move(locks);

  Json loops = Json::array();
  for (const LoopStats& loop : s.loops) {
    if (loop.type != ompt_work_loop && loop.type != ompt_work_taskloop) continue;
    // Every thread reports each execution: the busiest thread's count is the loop's.
    LoopStats::PerThread busiest;
    for (const LoopStats::PerThread& t : loop.threads) {
      if (t.executions > busiest.executions) busiest = t;
    }
    Json entry = {{"executions", busiest.executions},
                  {"construct", loop.type == ompt_work_taskloop ? "taskloop" : "loop"},
                  {"codeptr", hex(loop.codeptr)}};
    if (const CodeLocation* location = locations.find(loop.codeptr)) {
      entry["location"] = location_json(*location);
    }
    entry["iterations"] = busiest.iterations;
    add_schedule(entry, region, loop.codeptr);
    loops.push_back(std::move(entry));
  }
  out["loops"] = std::move(loops);
  out["constructs"] = constructs_json(region, s, locations);

  std::uint64_t created = 0, executed = 0, masked = 0, masked_ticks = 0;
  for (const ThreadStats& t : s.threads) {
    created += t.tasks_created;
    executed += t.tasks_completed;
    masked += t.masked_executions;
    masked_ticks += t.masked_ticks;
  }
  out["tasks"] = {{"created", created}, {"executed", executed}};
  if (masked > 0) out["masked"] = {{"executions", masked}, {"ns", ns(masked_ticks)}};
  return out;
}

Json manual_region(const Region& region, const RegionStats* stats) {
  std::uint64_t measured = 0, ticks = 0;
  Json threads = Json::array();
  if (stats != nullptr) {
    for (std::size_t i = 0; i < stats->threads.size(); ++i) {
      const ThreadStats& t = stats->threads[i];
      if (t.manual_executions == 0) continue;
      measured += t.manual_executions;
      ticks += t.manual_ticks;
      threads.push_back(
          {{"thread", i}, {"executions", t.manual_executions}, {"work_ns", ns(t.manual_ticks)}});
    }
  }
  const std::uint64_t begins = region.executions.load(std::memory_order_relaxed);
  return {{"id", region.id},
          {"kind", "manual"},
          {"name", region.name},
          {"parent", parent_json(region)},
          {"nesting_level", region.level},
          {"executions", begins},
          {"executions_measured", measured},
          {"wall_ns", ns(ticks)},
          {"threads", std::move(threads)},
          {"manual", {{"begins", begins}, {"ends", region.ends.load(std::memory_order_relaxed)}}}};
}

Json serial_region(std::uint32_t id, const Region* before, std::uint64_t executions,
                   const RegionStats* stats) {
  const std::uint64_t measured = stats != nullptr ? stats->serial_measured : 0;
  const std::uint64_t ticks = stats != nullptr ? stats->serial_ticks : 0;
  const double variance = stats != nullptr ? stats->serial_variance : 0.0;
  return {
      {"id", id},
      {"kind", "serial"},
      {"name", before != nullptr ? "serial before " + std::to_string(before->id)
                                 : std::string("serial before end")},
      {"parent", nullptr},
      {"nesting_level", 0},
      {"executions", executions},
      {"executions_measured", measured},
      {"team_size", {{"min", 1}, {"max", 1}}},
      {"wall_ns", ns(ticks)},
      {"wall_se_ns", ns(std::sqrt(variance))},
      {"threads", Json::array({{{"thread", 0}, {"executions", measured}, {"work_ns", ns(ticks)}}})},
      {"serial", {{"before", before != nullptr ? Json(before->id) : Json(nullptr)}}}};
}

Json build(std::uint64_t end_ticks) {
  const sync::ClockInfo& clock = sync::clock_info();
  Json profile = {
      {"format", "ompscan-profile-1"},
      {"tool_version", std::string(OMPSCALE_VERSION) + " (git " + OMPSCALE_GIT_HASH + ")"},
      {"runtime_version", g.runtime_version},
      {"omp_version", g.omp_version},
      {"pid", g.pid},
      {"clock",
       {{"source", sync::to_string(clock.source)},
        {"ticks_per_second", clock.ticks_per_second},
        {"tsc_invariant", clock.tsc_invariant}}},
      {"process_ns", ns(end_ticks - g.init_ticks)},
      {"max_threads", g.max_threads.load(std::memory_order_relaxed)},
      {"sampling",
       {{"policy", g.sample_all ? "all" : "adaptive"},
        {"estimator", "horvitz-thompson"},
        {"always_first", g.sample_all ? 0 : g.region_sampling.always_first},
        {"measure_cost_ns_per_thread", g.region_sampling.cost_ns_per_thread},
        {"budget", g.region_sampling.budget},
        {"relative_error", g.region_sampling.relative_error},
        {"lock_always_first", g.sample_all ? 0 : g.lock_sampler.always_first},
        {"lock_per_doubling", g.sample_all ? 0 : g.lock_sampler.always_first / 2},
        {"lock_max_period", 1ull << g.lock_sampler.max_log2_period},
        {"dropped_events", g.dropped_events.load()},
        {"buffer_full_events", g.buffer_full_events.load()},
        {"aggregation_ns", ns(g.aggregation_ticks.load())},
        {"unmeasured_no_memory", g.unmeasured_no_memory.load()},
        {"unmeasured_tasks", g.unmeasured_tasks.load()},
        {"regions_dropped", regions_dropped()},
        {"manual_unmatched", g.manual_unmatched.load()}}}};

  Locations locations;
  const std::uint32_t count = region_count();
  for (std::uint32_t id = 0; id < count; ++id) {
    const Region* region = region_by_id(id);
    if (region == nullptr || region->kind != RegionKind::kParallel) continue;
    locations.add(region->codeptr, region->location);
    if (const RegionStats* stats = region->stats) {
      for (const LockStats& lock : stats->locks) locations.capture(lock.codeptr);
      for (const LoopStats& loop : stats->loops) locations.capture(loop.codeptr);
    }
    for (std::uint8_t i = 0; i < kMaxSites; ++i) {
      const std::uint64_t key = region->sites[i].load(std::memory_order_acquire);
      if (key == 0) break;
      locations.capture(reinterpret_cast<const void*>(static_cast<std::uintptr_t>(key >> 8)));
    }
  }
  if (!g.raw_locations) {
    const std::string why_unresolved = locations.resolve();
    if (!why_unresolved.empty()) profile["locations_unresolved"] = why_unresolved;
  }

  Json regions = Json::array();
  std::vector<const Region*> with_serial;
  for (std::uint32_t id = 0; id < count; ++id) {
    const Region* region = region_by_id(id);
    if (region == nullptr) continue;
    if (region->kind == RegionKind::kManual) {
      regions.push_back(manual_region(*region, region->stats));
      continue;
    }
    regions.push_back(parallel_region(*region, region->stats, locations));
    if (region->serial_executions.load(std::memory_order_relaxed) > 0)
      with_serial.push_back(region);
  }
  std::uint32_t next_id = count;
  for (const Region* region : with_serial) {
    regions.push_back(serial_region(next_id++, region,
                                    region->serial_executions.load(std::memory_order_relaxed),
                                    region->stats));
  }
  if (const RegionStats* end = serial_end_stats()) {
    regions.push_back(serial_region(next_id++, nullptr, 1, end));
  }
  profile["regions"] = std::move(regions);
  return profile;
}

// Writes a temporary file and renames it over `path`, so a profile is whole or absent; a device
// or pipe (/dev/null, a FIFO) is written into directly, as renaming over it would replace it by a
// regular file (common/output_file.h does the same for the CLIs).
bool write_file(const char* path, const std::string& text) {
  struct stat info {};
  const bool direct = stat(path, &info) == 0 && !S_ISREG(info.st_mode) && !S_ISDIR(info.st_mode);
  const std::string temporary = std::string(path) + ".tmp";
  const int fd = direct ? open(path, O_WRONLY | O_CLOEXEC)
                        : open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += static_cast<std::size_t>(n);
  }
  const bool ok = close(fd) == 0 && written == text.size();
  if (direct) return ok;
  if (!ok || rename(temporary.c_str(), path) != 0) {
    unlink(temporary.c_str());
    return false;
  }
  return true;
}

// Everything still in the threads' buffers and lock sites, and the serial time since the last
// parallel region. Under the aggregation lock.
void aggregate_remaining(std::uint64_t end_ticks) {
  for_each_thread([](ThreadState& ts) {
    aggregate_records(ts.records, ts.size.load(std::memory_order_acquire));
    for (LockSite& site : ts.sites) {
      const std::uint64_t count = site.count.load(std::memory_order_relaxed);
      if (count == 0) continue;
      Record record{};
      record.type = RecordType::kLockCount;
      record.region = site.region;
      record.thread = site.thread;
      record.sub = site.kind;
      record.a = reinterpret_cast<std::uintptr_t>(site.codeptr);
      record.b = count;
      aggregate_records(&record, 1);
    }
  });
  if (g.serial_pending) {
    Record record{};
    record.type = RecordType::kSerial;
    record.region = record_region(kSerialEndRegion, g.serial_log2_weight);
    record.a = end_ticks > g.serial_start ? end_ticks - g.serial_start : 0;
    aggregate_records(&record, 1);
  }
}

}  // namespace

bool write_profile(const char* path, std::uint64_t end_ticks) {
  // A thread aggregating a full buffer holds the lock for a fraction of a millisecond: never hang
  // the application's exit on a lock whose holder cannot run.
  if (!g.aggregation_lock.lock_within(2.0)) return false;
  bool ok = false;
  try {
    aggregate_remaining(end_ticks);
    Json profile = build(end_ticks);
    ok = write_file(path, profile.dump(1, ' ', false, Json::error_handler_t::replace) + "\n");
  } catch (...) {
    ok = false;
  }
  g.aggregation_lock.unlock();
  return ok;
}

}  // namespace ompscale::regions::ompt

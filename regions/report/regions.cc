#include "regions/report/regions.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "common/statistics.h"
#include "common/text.h"
#include "regions/report/calibration.h"
#include "regions/report/read_runs.h"

namespace ompscale::regions::report {

namespace {

constexpr std::string_view kSerialPrefix = "serial before ";

const RegionRecord* find_id(const Profile& profile, long long id) {
  for (const RegionRecord& r : profile.regions) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

// The region a serial gap precedes, when its name says which one and that one exists.
const RegionRecord* preceded(const RegionRecord& serial, const Profile& profile) {
  if (!serial.name.starts_with(kSerialPrefix)) return nullptr;
  const auto id = parse_double(std::string_view(serial.name).substr(kSerialPrefix.size()));
  if (!id) return nullptr;
  const RegionRecord* next = find_id(profile, static_cast<long long>(*id));
  return next != nullptr && next->kind != RegionKind::kSerial ? next : nullptr;
}

std::string region_label(const RegionRecord& region, const Profile& profile) {
  switch (region.kind) {
    case RegionKind::kParallel:
      return region.location.label();
    case RegionKind::kManual:
      return region.name;
    case RegionKind::kSerial:
      if (const RegionRecord* next = preceded(region, profile)) {
        return fmt::format("serial before {}", region_label(*next, profile));
      }
      return region.name.empty() ? "serial" : region.name;
  }
  return region.name;
}

// One region's costs in each run of one (threads, input), in run file order.
struct Accumulator {
  struct Run {
    RegionCosts costs;
    std::vector<LockSite> locks;
    std::vector<ConstructCosts> constructs;
    bool time_shared = false;
  };
  std::vector<Run> runs;
  std::set<std::string> schedules;
  bool gomp_abi = false;
  bool bound = false;
};

void add_costs(RegionCosts& into, const RegionCosts& c) {
  into.executions += c.executions;
  into.time_se += c.time_se;
  into.idle_se += c.idle_se;
  into.time_exact = into.time_exact && c.time_exact;
  into.executions_measured += c.executions_measured;
  into.team += c.team;
  into.work += c.work;
  into.work_max += c.work_max;
  into.fork += c.fork;
  into.team_start += c.team_start;
  into.start_cpu_wait += c.start_cpu_wait;
  into.imbalance += c.imbalance;
  into.walkthrough += c.walkthrough;
  into.startup += c.startup;
  into.lock_algorithm += c.lock_algorithm;
  into.lock_contention += c.lock_contention;
  into.lock_acquisitions += c.lock_acquisitions;
  into.barriers += c.barriers;
  into.tasks_created += c.tasks_created;
  into.tasks_executed += c.tasks_executed;
  into.task += c.task;
  into.barrier_task += c.barrier_task;
  into.task_wait += c.task_wait;
  into.top_creator_tasks += c.top_creator_tasks;
  into.lock_untimed = into.lock_untimed || c.lock_untimed;
}

void divide_costs(RegionCosts& c, double n) {
  for (double* v : {&c.time_se,      &c.idle_se,        &c.executions,       &c.executions_measured,
                    &c.team,         &c.work,           &c.work_max,         &c.fork,
                    &c.team_start,   &c.start_cpu_wait, &c.imbalance,        &c.walkthrough,
                    &c.startup,      &c.lock_algorithm, &c.lock_contention,  &c.lock_acquisitions,
                    &c.barriers,     &c.tasks_created,  &c.tasks_executed,   &c.task,
                    &c.barrier_task, &c.task_wait,      &c.top_creator_tasks}) {
    *v /= n;
  }
}

// The repetitions of one (threads, input) as one point: every quantity from the median
// repetition by time (the mean of the two middle ones for an even count), so that the costs
// belong to the time they are compared with. A mean of costs next to a median of times lets one
// slow repetition's costs exceed the time of the typical one.
RegionPoint combine_repetitions(const Accumulator& acc) {
  RegionPoint p;
  // Time-shared repetitions measure the scheduler: left out when there are others.
  const bool any_alone = std::any_of(acc.runs.begin(), acc.runs.end(),
                                     [](const Accumulator::Run& r) { return !r.time_shared; });
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < acc.runs.size(); ++i) {
    if (any_alone && acc.runs[i].time_shared) {
      ++p.time_shared_left_out;
      continue;
    }
    order.push_back(i);
    p.times.push_back(acc.runs[i].costs.time);
  }
  p.time_shared = !any_alone;
  p.repetitions = static_cast<int>(order.size());
  p.time_min = stats::min(p.times);
  p.time_max = stats::max(p.times);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return acc.runs[a].costs.time < acc.runs[b].costs.time;
  });
  const std::size_t n = order.size();
  const std::vector<std::size_t> middle =
      n % 2 == 1 ? std::vector<std::size_t>{order[n / 2]}
                 : std::vector<std::size_t>{order[n / 2 - 1], order[n / 2]};
  std::map<std::pair<std::string, std::string>, LockSite> locks;
  for (std::size_t i : middle) {
    const Accumulator::Run& run = acc.runs[i];
    add_costs(p.costs, run.costs);
    p.costs.time += run.costs.time;
    add_constructs(p.constructs, run.constructs);
    for (const LockSite& site : run.locks) {
      auto [it, fresh] = locks.try_emplace({site.kind, site.label}, site);
      if (fresh) continue;
      it->second.acquisitions += site.acquisitions;
      it->second.algorithm += site.algorithm;
      it->second.contention += site.contention;
      it->second.fastest_ns = std::min(it->second.fastest_ns, site.fastest_ns);
      it->second.mean_ns += site.mean_ns;
    }
  }
  const auto count = static_cast<double>(middle.size());
  divide_costs(p.costs, count);
  divide_constructs(p.constructs, count);
  std::vector<const std::vector<ConstructCosts>*> kept;
  for (std::size_t i : order) kept.push_back(&acc.runs[i].constructs);
  set_median_times(p.constructs, kept);
  p.costs.time /= count;
  for (auto& [id, site] : locks) {
    site.acquisitions /= count;
    site.algorithm /= count;
    site.contention /= count;
    site.mean_ns /= count;
    p.locks.push_back(site);
  }
  p.schedules.assign(acc.schedules.begin(), acc.schedules.end());
  p.gomp_abi = acc.gomp_abi;
  p.bound = acc.bound;
  return p;
}

using Config = std::pair<long, int>;  // input rank, threads
using Accumulators = std::map<std::string, std::map<Config, Accumulator>>;

bool disjoint(const std::map<Config, Accumulator>& a, const std::map<Config, Accumulator>& b) {
  return std::none_of(a.begin(), a.end(), [&](const auto& entry) { return b.count(entry.first); });
}

// Moves `from`'s runs into `into`'s when no (input, threads) has both; true when merged.
bool merge_accumulators(Accumulators& accumulators, const std::string& into,
                        const std::string& from) {
  if (accumulators.count(into) == 0 || accumulators.count(from) == 0) return false;
  if (!disjoint(accumulators[into], accumulators[from])) return false;
  for (auto& [config, acc] : accumulators[from]) accumulators[into][config] = std::move(acc);
  accumulators.erase(from);
  return true;
}

// Copies of one source region that never ran at the same (input, threads) are one region: GCC
// splits a function along a branch on the thread count (LULESH's IntegrateStressForElems at -O3),
// and the copy that runs at one thread is not the one that runs at two. Parallel regions with the
// same resolved source location (file, line, function with its call site) and nesting are merged
// into the first seen, with the serial gaps before them.
void merge_split_copies(std::vector<std::string>& order, std::map<std::string, Region>& regions,
                        Accumulators& accumulators) {
  std::map<std::string, std::string> merged;
  std::map<std::tuple<std::string, int, std::string, int>, std::string> first;
  for (const std::string& key : order) {
    const Region& r = regions[key];
    if (r.kind != RegionKind::kParallel || !r.location.resolved()) continue;
    const auto identity =
        std::make_tuple(r.location.file, r.location.line, r.location.function, r.nesting_level);
    auto [it, fresh] = first.try_emplace(identity, key);
    if (fresh || !merge_accumulators(accumulators, it->second, key)) continue;
    merged[key] = it->second;
    const std::string serial = "serial:" + key;
    if (merge_accumulators(accumulators, "serial:" + it->second, serial)) merged[serial] = "";
  }
  std::erase_if(order, [&](const std::string& key) { return merged.count(key) != 0; });
  for (const auto& [key, into] : merged) regions.erase(key);
  for (auto& [key, region] : regions) {
    if (auto it = merged.find(region.parent_key); it != merged.end())
      region.parent_key = it->second;
  }
}

}  // namespace

double RegionCosts::sampling_ratio() const {
  return executions > 0.0 ? executions_measured / executions : 1.0;
}

double RegionPoint::spread() const {
  return repetitions > 1 && costs.time > 0.0 ? (time_max - time_min) / costs.time : 0.0;
}

const RegionPoint* Region::find(const std::string& input, int threads) const {
  for (const RegionPoint& p : points) {
    if (p.input == input && p.threads == threads) return &p;
  }
  return nullptr;
}

std::string region_key(const RegionRecord& region, const Profile& profile) {
  switch (region.kind) {
    case RegionKind::kParallel:
      return fmt::format("parallel:{}+{}",
                         std::filesystem::path(region.location.module).filename().string(),
                         region.location.offset);
    case RegionKind::kManual:
      return "manual:" + region.name;
    case RegionKind::kSerial:
      if (const RegionRecord* next = preceded(region, profile)) {
        return "serial:" + region_key(*next, profile);
      }
      return "serial:" + region.name;
  }
  return region.name;
}

RegionCosts run_costs(const RegionRecord& region, std::vector<LockSite>* locks, double calibration,
                      std::vector<ConstructCosts>* constructs) {
  RegionCosts c;
  c.executions = region.executions;
  c.executions_measured = region.executions_measured;
  const double scale = sampling_scale(region) * calibration;
  c.time = region.wall_ns * scale * kSecondsPerNs;
  c.time_se = region.wall_se_ns * calibration * kSecondsPerNs;
  c.idle_se = region.idle_se_ns * calibration * kSecondsPerNs;
  c.time_exact = region.wall_exact;
  const auto team = static_cast<double>(region.threads.size());
  c.team = team;
  if (constructs != nullptr) *constructs = construct_costs(region, scale, team);
  c.tasks_created = region.tasks_created * scale;
  c.tasks_executed = region.tasks_executed * scale;
  for (const ThreadRecord& t : region.threads) {
    c.work += t.work_ns;
    c.work_max = std::max(c.work_max, t.work_ns * scale * kSecondsPerNs);
    c.fork += t.fork_ns;
    c.team_start += t.team_start_ns;
    c.start_cpu_wait += t.start_cpu_wait_ns;
    c.imbalance += t.imbalance_ns;
    c.walkthrough += t.walkthrough_ns;
    c.startup += t.startup_ns;
    c.barriers += t.barriers;
    c.task += t.task_ns;
    c.barrier_task += t.barrier_task_ns;
    c.task_wait += t.task_wait_ns + t.taskwait_ns;
    c.top_creator_tasks = std::max(c.top_creator_tasks, t.tasks_created * scale);
  }
  double algorithm = 0.0;
  double contention = 0.0;
  for (const LockRecord& l : region.locks) {
    const double acquisitions = l.acquisitions * scale;
    c.lock_acquisitions += acquisitions;
    LockSite site{l.kind, l.location.label(), acquisitions, 0.0, 0.0, l.fastest_ns, 0.0};
    if (l.timed > 0.0) {
      // The fastest timed acquisition is taken as contention-free (ScalOMP): every acquisition
      // costs at least that much; whatever the timed ones took beyond it is waiting for others.
      // `acquisitions` counts every acquisition of the measured executions; the wait of all of
      // them is the tool's weighted estimate when present, else the timed mean times the count.
      const double wait_all =
          l.wait_estimate_ns > 0.0 ? l.wait_estimate_ns : l.wait_ns * (l.acquisitions / l.timed);
      site.algorithm = acquisitions * l.fastest_ns * kSecondsPerNs;
      site.contention =
          std::max(0.0, (wait_all - l.acquisitions * l.fastest_ns) * scale * kSecondsPerNs);
      site.mean_ns = l.wait_ns / l.timed;
    } else if (l.acquisitions > 0.0) {
      c.lock_untimed = true;
    }
    algorithm += site.algorithm;
    contention += site.contention;
    if (locks != nullptr) locks->push_back(site);
  }
  if (team > 0.0) {
    const double per_thread = scale * kSecondsPerNs / team;
    c.work *= per_thread;
    c.fork *= per_thread;
    c.team_start *= per_thread;
    c.start_cpu_wait *= per_thread;
    c.imbalance *= per_thread;
    c.walkthrough *= per_thread;
    c.startup *= per_thread;
    c.task *= per_thread;
    c.barrier_task *= per_thread;
    c.task_wait *= per_thread;
    c.barriers *= scale / team;
    c.lock_algorithm = algorithm / team;
    c.lock_contention = contention / team;
  } else {
    // No thread records (a serial gap): nothing to split, the time is all there is.
    c.work = c.fork = c.imbalance = c.walkthrough = c.startup = c.barriers = c.task = 0.0;
    c.team_start = c.start_cpu_wait = 0.0;
    c.barrier_task = c.task_wait = 0.0;
  }
  return c;
}

Measurements aggregate(const std::vector<RunFile>& runs) {
  Measurements m;
  // Inputs: the first index each name was seen with orders them.
  std::map<std::string, int> input_index;
  std::set<int> threads;
  for (const RunFile& run : runs) {
    auto [it, inserted] = input_index.try_emplace(run.input, run.input_index);
    if (!inserted) it->second = std::min(it->second, run.input_index);
    threads.insert(run.threads);
  }
  for (const auto& [name, index] : input_index) {
    m.inputs.push_back({name, index, parse_double(name)});
  }
  std::sort(m.inputs.begin(), m.inputs.end(), [](const InputInfo& a, const InputInfo& b) {
    return std::tie(a.index, a.name) < std::tie(b.index, b.name);
  });
  m.thread_counts.assign(threads.begin(), threads.end());
  auto input_rank = [&](const std::string& name) {
    return std::find_if(m.inputs.begin(), m.inputs.end(),
                        [&](const InputInfo& i) { return i.name == name; }) -
           m.inputs.begin();
  };

  std::vector<std::string> order;
  std::map<std::string, Region> regions;
  Accumulators accumulators;
  std::map<Config, std::pair<std::vector<double>, std::vector<double>>> program;  // wall, process

  for (const RunFile& run : runs) {
    const Config config{input_rank(run.input), run.threads};
    program[config].first.push_back(run.wall_ns * kSecondsPerNs);
    program[config].second.push_back(run.profile->process_ns * kSecondsPerNs);
    const Calibration calibration = calibrate(*run.profile);
    // The first parallel region the tool saw (ids are given in order of first sight).
    long long first_parallel = -1;
    for (const RegionRecord& record : run.profile->regions) {
      if (record.kind == RegionKind::kParallel && record.nesting_level == 0 &&
          (first_parallel < 0 || record.id < first_parallel)) {
        first_parallel = record.id;
      }
    }
    for (const RegionRecord& record : run.profile->regions) {
      if (record.executions_measured <= 0.0) {
        ++m.unmeasured_records;
        continue;
      }
      const std::string key = region_key(record, *run.profile);
      auto [it, inserted] = regions.try_emplace(key);
      if (inserted) {
        Region& r = it->second;
        r.key = key;
        r.kind = record.kind;
        r.label = region_label(record, *run.profile);
        r.location = record.location;
        r.name = record.name;
        r.nesting_level = record.nesting_level;
        const RegionRecord* next =
            record.kind == RegionKind::kSerial ? preceded(record, *run.profile) : nullptr;
        r.before_first_region = next != nullptr && next->id == first_parallel;
        if (record.parent) {
          if (const RegionRecord* parent = find_id(*run.profile, *record.parent)) {
            r.parent_key = region_key(*parent, *run.profile);
          }
        }
        order.push_back(key);
      }
      Accumulator& acc = accumulators[key][config];
      Accumulator::Run& entry = acc.runs.emplace_back();
      entry.time_shared = run.time_shared;
      entry.costs =
          run_costs(record, &entry.locks, calibration.factor(record.id), &entry.constructs);
      for (const LoopRecord& loop : record.loops) acc.schedules.insert(loop.schedule);
      acc.gomp_abi = acc.gomp_abi || run.gomp_abi;
      acc.bound = acc.bound || (!run.bind.empty() && run.bind != "false");
    }
  }

  merge_split_copies(order, regions, accumulators);
  std::set<std::string> labels;
  for (const std::string& key : order) {
    Region region = std::move(regions[key]);
    // Labels name kernels and plot panels: two regions must not share one. Copies of one region
    // the debug info does not tell apart (a GCC inline chain naming one call site for two) are
    // numbered in order of first execution.
    if (!labels.insert(region.label).second) {
      const std::string label = region.label;
      for (int copy = 2; !labels.insert(region.label).second; ++copy) {
        region.label = fmt::format("{} (copy {})", label, copy);
      }
    }
    for (const auto& [config, acc] : accumulators[key]) {
      RegionPoint p = combine_repetitions(acc);
      p.input = m.inputs[static_cast<std::size_t>(config.first)].name;
      p.threads = config.second;
      region.points.push_back(std::move(p));
    }
    m.regions.push_back(std::move(region));
  }
  for (const auto& [config, times] : program) {
    ProgramPoint p;
    p.input = m.inputs[static_cast<std::size_t>(config.first)].name;
    p.threads = config.second;
    p.repetitions = static_cast<int>(times.first.size());
    p.time = stats::median(times.first);
    p.time_min = stats::min(times.first);
    p.time_max = stats::max(times.first);
    p.times = times.first;
    p.process = stats::median(times.second);
    m.program.push_back(p);
  }
  return m;
}

}  // namespace ompscale::regions::report

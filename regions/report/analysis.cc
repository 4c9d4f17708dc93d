#include "regions/report/analysis.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

namespace ompscale::regions::report {

namespace {

/// "1.91 s", "430 ms", "12.5 us": durations in hint texts.
std::string duration(double seconds) {
  const double a = std::fabs(seconds);
  if (a >= 1.0) return fmt::format("{:.3g} s", seconds);
  if (a >= 1e-3) return fmt::format("{:.3g} ms", seconds * 1e3);
  if (a >= 1e-6) return fmt::format("{:.3g} us", seconds * 1e6);
  return fmt::format("{:.3g} ns", seconds * 1e9);
}

std::string count(double n) {
  if (n >= 1e9) return fmt::format("{:.3g} G", n / 1e9);
  if (n >= 1e6) return fmt::format("{:.3g} M", n / 1e6);
  if (n >= 1e4) return fmt::format("{:.3g} k", n / 1e3);
  return fmt::format("{:.0f}", n);
}

CategoryCosts scaled_difference(const CategoryCosts& at_p, const CategoryCosts& at_p0,
                                double ratio) {
  return {at_p.imbalance - at_p0.imbalance * ratio, at_p.walkthrough - at_p0.walkthrough * ratio,
          at_p.startup - at_p0.startup * ratio,
          at_p.lock_contention - at_p0.lock_contention * ratio,
          at_p.lock_algorithm - at_p0.lock_algorithm * ratio,
          at_p.task_wait - at_p0.task_wait * ratio};
}

// Speedup, efficiency and lost time of a series of (threads, time) against its first point.
void scale_against_first(std::vector<PointAnalysis>& points) {
  if (points.empty()) return;
  const PointAnalysis& base = points.front();
  for (PointAnalysis& p : points) {
    const double ratio = static_cast<double>(base.threads) / static_cast<double>(p.threads);
    p.speedup = p.time > 0.0 ? base.time / p.time : 0.0;
    p.efficiency = p.speedup * ratio;
    p.lost = p.time - base.time * ratio;
  }
}

const LockSite* dominant_site(const std::vector<LockSite>& sites, bool contention) {
  const LockSite* best = nullptr;
  for (const LockSite& s : sites) {
    const double v = contention ? s.contention : s.algorithm;
    if (best == nullptr || v > (contention ? best->contention : best->algorithm)) best = &s;
  }
  return best;
}

std::string lock_algorithm_advice(const std::string& kind) {
  if (kind == "critical") {
    return "fewer critical sections (accumulate privately, merge once), `#pragma omp atomic` "
           "for simple updates, or a reduction clause";
  }
  if (kind == "atomic") {
    return "fewer atomic updates: accumulate in a private variable and update once per thread, "
           "or a reduction clause";
  }
  if (kind == "reduction") {
    return "fewer reductions: reduce once after the loop rather than per iteration";
  }
  return "fewer lock calls (privatise and merge), `#pragma omp atomic` for simple updates, or "
         "omp_init_lock_with_hint(..., omp_sync_hint_uncontended) so the runtime picks a lock "
         "that is cheap without contention";
}

std::string lock_contention_advice(const std::string& kind) {
  if (kind == "critical") {
    return "less sharing: privatise the data or use a reduction; named critical sections or "
           "finer-grained locks for independent data; or a lock that copes with contention "
           "(omp_sync_hint_contended, a queuing lock such as MCS)";
  }
  return "less sharing: privatise or partition the protected data, finer-grained locks; or "
         "another lock that copes with contention (omp_sync_hint_contended, a queuing lock such "
         "as MCS)";
}

struct HintText {
  std::string problem;
  std::string advice;
};

// A region whose threads spend a tenth of its time or more in explicit tasks: its barrier waits
// are about tasks (creation, granularity), not loop schedules.
bool is_task_region(const PointAnalysis& p) {
  return p.tasks_executed > 0.0 && p.task >= 0.1 * p.time;
}

double mean_task_seconds(const PointAnalysis& p) {
  return p.tasks_executed > 0.0 ? p.task * p.threads / p.tasks_executed : 0.0;
}

// Below this a task's own runtime cost (creation, scheduling) is a large part of it.
constexpr double kSmallTaskSeconds = 5e-6;

// ", 1000 tasks of 12.5 us on average, 100% created by one thread" (empty without tasks).
std::string task_summary(const PointAnalysis& p) {
  if (!(p.tasks_executed > 0.0)) return "";
  std::string out = fmt::format(" ({} tasks of {} on average", count(p.tasks_executed),
                                duration(mean_task_seconds(p)));
  if (p.threads > 1 && p.tasks_created > 0.0) {
    out += fmt::format(", {:.0f}% created by one thread",
                       100.0 * p.top_creator_tasks / p.tasks_created);
  }
  return out + ")";
}

// Barrier waits before the last arrival in a task region: threads found no task to run.
HintText task_idle_hint(const PointAnalysis& p) {
  HintText out;
  out.problem = fmt::format(
      "idle threads: threads wait {} on average at the region's barriers before the last one "
      "arrives, finding no task to run{}",
      duration(p.cost.imbalance), task_summary(p));
  const bool one_producer =
      p.threads > 1 && p.tasks_created > 0.0 && p.top_creator_tasks >= 0.9 * p.tasks_created;
  if (one_producer) {
    out.advice =
        "one thread creates the tasks and the others wait for them: create them from several "
        "threads (a taskloop, or a worksharing loop whose iterations create them) or earlier, so "
        "idle threads find work";
  } else {
    out.advice = "more tasks that idle threads can take (a deeper cutoff), created early";
  }
  if (mean_task_seconds(p) < kSmallTaskSeconds) {
    out.advice += fmt::format(
        "; at {} per task the runtime's cost per task is a large share of it: fewer, larger "
        "tasks (a larger cutoff)",
        duration(mean_task_seconds(p)));
  }
  return out;
}

// Imbalance at the barriers of worksharing loops: the schedule advice.
HintText loop_imbalance_hint(const RegionPoint& at, const PointAnalysis& p) {
  HintText out;
  out.problem = fmt::format(
      "load imbalance: threads wait {} on average for the last one at the region's barriers",
      duration(p.cost.imbalance));
  out.advice = "balance the work: " + balance_advice(at.schedules, at.gomp_abi);
  return out;
}

bool balances_already(const std::string& schedule) {
  return schedule.starts_with("dynamic") || schedule.starts_with("guided") ||
         schedule.find("OMP_SCHEDULE=dynamic") != std::string::npos ||
         schedule.find("OMP_SCHEDULE=guided") != std::string::npos;
}

void add_hints(const Region& region, const RegionPoint& at, const PointAnalysis& p,
               const AnalysisOptions& options, SeriesAnalysis& out) {
  const double threshold = options.min_hint_fraction * p.time;
  auto add = [&](HintKind kind, double gain, std::string problem, std::string advice) {
    if (!(gain > 0.0) || gain < threshold) return;
    // Removing a cause cannot save more than the region's time (sampled or noisy costs can sum
    // above it): the time after is never negative.
    gain = std::min(gain, p.time);
    out.hints.push_back({kind, gain, p.time - gain, std::move(problem), std::move(advice)});
  };
  if (region.kind == RegionKind::kSerial) {
    add(HintKind::kSerial, p.lost,
        fmt::format("serial code: {} above perfect scaling from {} thread(s)", duration(p.lost),
                    out.base_threads),
        "parallelise it or overlap it with parallel work (the gain assumes it scaled "
        "perfectly)");
    return;
  }
  const CategoryCosts& c = p.cost;
  const HintText balance = is_task_region(p) ? task_idle_hint(p) : loop_imbalance_hint(at, p);
  add(HintKind::kImbalance, c.imbalance, balance.problem, balance.advice);
  if (c.task_wait > 0.0) {
    add(HintKind::kTaskWait, c.task_wait,
        fmt::format("waiting for tasks: threads wait {} on average for the last explicit tasks to "
                    "end without one to run (at barriers after everyone arrived, and in taskwait "
                    "or taskgroup ends){}",
                    duration(c.task_wait), task_summary(p)),
        "shorten the tail: split the largest tasks (a deeper cutoff), create the longest ones "
        "first, and wait only where the results are needed (dependences or one taskgroup "
        "instead of a taskwait per round)");
  }
  add(HintKind::kLockAlgorithm, c.lock_algorithm,
      fmt::format("lock algorithm: {} acquisitions cost {} per thread even without contention",
                  count(at.costs.lock_acquisitions), duration(c.lock_algorithm)),
      [&] {
        const LockSite* site = dominant_site(at.locks, false);
        return site == nullptr ? lock_algorithm_advice("lock")
                               : fmt::format("{} ({} at {})", lock_algorithm_advice(site->kind),
                                             site->kind, site->label);
      }());
  add(HintKind::kLockContention, c.lock_contention,
      fmt::format("lock contention: threads wait {} on average for locks others hold",
                  duration(c.lock_contention)),
      [&] {
        const LockSite* site = dominant_site(at.locks, true);
        return site == nullptr ? lock_contention_advice("lock")
                               : fmt::format("{} ({} at {})", lock_contention_advice(site->kind),
                                             site->kind, site->label);
      }());
  add(HintKind::kWalkthrough, c.walkthrough,
      fmt::format("barrier walkthrough: {} per thread resolving {} barrier(s) per thread",
                  duration(c.walkthrough), count(at.costs.barriers)),
      "fewer barriers: nowait on worksharing constructs that need none, merge parallel regions; "
      "or another OpenMP runtime with a faster barrier");
  add(HintKind::kStartup, c.startup,
      fmt::format("barrier startup: threads leave barriers {} late on average",
                  duration(c.startup)),
      "threads are released slowly: OMP_WAIT_POLICY=active, bound threads (OMP_PROC_BIND), fewer "
      "barriers, or another OpenMP runtime");
  add(HintKind::kUnexplained, p.other,
      fmt::format("{} lost beyond perfect scaling that barriers and locks do not explain",
                  duration(p.other)),
      fmt::format("look for memory bandwidth or NUMA placement limits, false sharing, serial work "
                  "inside the region, or fork/join cost ({} per thread); hardware counters tell "
                  "them apart",
                  duration(at.costs.fork)));
  std::stable_sort(out.hints.begin(), out.hints.end(),
                   [](const Hint& a, const Hint& b) { return a.gain > b.gain; });
}

// A thread waiting for a CPU looks like a thread the team waits for (imbalance, task waits),
// a slow barrier or lock, or lost time nothing explains: at a time-shared point such hints
// would blame the application for the scheduler.
bool time_sharing_inflates(HintKind kind) {
  return kind != HintKind::kLockAlgorithm && kind != HintKind::kSerial;
}

void withhold_waiting_hints(SeriesAnalysis& s) {
  std::vector<Hint> kept;
  for (Hint& h : s.hints) (time_sharing_inflates(h.kind) ? s.withheld : kept).push_back(h);
  s.hints = std::move(kept);
  for (ConstructAnalysis& c : s.constructs) c.hints.clear();  // all about waiting
}

}  // namespace

std::string balance_advice(const std::vector<std::string>& schedules, bool gomp_abi) {
  const std::string now = fmt::format("{}", fmt::join(schedules, ", "));
  // GCC computes static schedules inline: through the GOMP ABI only its other loops reach the
  // runtime, so a GCC build's loops without a reported schedule are static ones, unseen.
  const std::string unseen =
      !gomp_abi ? ""
      : schedules.empty()
          ? " (schedule unknown: a GCC build's static loops call no runtime function, so the "
            "OpenMP tool interface sees none of them)"
          : " (a GCC build's static loops are not seen)";
  const auto all = [&](auto predicate) {
    return !schedules.empty() && std::all_of(schedules.begin(), schedules.end(), predicate);
  };
  if (all(balances_already)) {
    return fmt::format("smaller chunks, or split the costliest iterations (schedule now: {}{})",
                       now, gomp_abi ? "; a GCC build's static loops are not seen" : "");
  }
  if (all([](const std::string& s) { return s.starts_with("runtime"); })) {
    return fmt::format(
        "the loop takes its schedule at run time (now: {}): make it dynamic or guided there "
        "(OMP_SCHEDULE=dynamic, or omp_set_schedule), or write schedule(dynamic) or "
        "schedule(guided) in the code{}",
        now, unseen);
  }
  const bool any_dispatch = std::find(schedules.begin(), schedules.end(), "dispatch") !=
                            schedules.end();
  if (any_dispatch &&
      all([](const std::string& s) { return s == "dispatch" || balances_already(s); })) {
    return fmt::format(
        "the loop's schedule is dispatched (dynamic, guided, runtime or auto: the runtime does not "
        "say which): if dynamic or guided, smaller chunks or splitting the costliest iterations; "
        "if runtime, OMP_SCHEDULE=dynamic; if auto, schedule(dynamic) (schedule now: {})",
        now);
  }
  return fmt::format("schedule(dynamic) or schedule(guided) on the region's loop{}{}",
                     schedules.empty() ? "" : fmt::format(" (schedule now: {})", now), unseen);
}

CategoryCosts categories(const RegionCosts& c) {
  return {c.imbalance, c.walkthrough, c.startup, c.lock_contention, c.lock_algorithm, c.task_wait};
}

std::string_view to_string(HintKind kind) {
  switch (kind) {
    case HintKind::kImbalance:
      return "imbalance";
    case HintKind::kWalkthrough:
      return "walkthrough";
    case HintKind::kStartup:
      return "startup";
    case HintKind::kLockContention:
      return "lock-contention";
    case HintKind::kLockAlgorithm:
      return "lock-algorithm";
    case HintKind::kSerial:
      return "serial";
    case HintKind::kUnexplained:
      return "unexplained";
    case HintKind::kTaskWait:
      return "task-wait";
  }
  return "unknown";
}

std::string_view to_string(LockClass lock_class) {
  switch (lock_class) {
    case LockClass::kNone:
      return "none";
    case LockClass::kAlgorithm:
      return "algorithm";
    case LockClass::kContention:
      return "contention";
  }
  return "unknown";
}

SeriesAnalysis analyse_region(const Region& region, const std::string& input,
                              const AnalysisOptions& options) {
  SeriesAnalysis out;
  out.input = input;
  std::vector<const RegionPoint*> measured;
  for (const RegionPoint& p : region.points) {
    if (p.input == input) measured.push_back(&p);
  }
  std::sort(measured.begin(), measured.end(),
            [](const RegionPoint* a, const RegionPoint* b) { return a->threads < b->threads; });
  if (measured.empty()) return out;
  for (const RegionPoint* rp : measured) {
    PointAnalysis p;
    p.threads = rp->threads;
    p.repetitions = rp->repetitions;
    p.time = rp->costs.time;
    p.time_min = rp->time_min;
    p.time_max = rp->time_max;
    p.spread = rp->spread();
    p.time_se = rp->costs.time_se;
    p.time_shared = rp->time_shared;
    p.executions = rp->costs.executions;
    p.sampling_ratio = rp->costs.sampling_ratio();
    p.cost = categories(rp->costs);
    p.tasks_created = rp->costs.tasks_created;
    p.tasks_executed = rp->costs.tasks_executed;
    p.task = rp->costs.task;
    p.barrier_task = rp->costs.barrier_task;
    p.top_creator_tasks = rp->costs.top_creator_tasks;
    out.points.push_back(p);
  }
  scale_against_first(out.points);
  const PointAnalysis base = out.points.front();
  out.base_threads = base.threads;
  for (PointAnalysis& p : out.points) {
    const double ratio = static_cast<double>(base.threads) / static_cast<double>(p.threads);
    p.loss = scaled_difference(p.cost, base.cost, ratio);
    p.other = p.lost - p.loss.total();
    p.potential_gain =
        std::clamp(p.time - (base.time - base.cost.total()) * ratio, 0.0, std::max(0.0, p.time));
  }
  const PointAnalysis& ref = out.points.back();
  out.reference_threads = ref.threads;
  const double lock_total = ref.cost.lock_algorithm + ref.cost.lock_contention;
  if (lock_total > 0.0) {
    out.lock_class = ref.cost.lock_contention > ref.cost.lock_algorithm ? LockClass::kContention
                                                                        : LockClass::kAlgorithm;
  }
  add_hints(region, *measured.back(), ref, options, out);
  out.constructs = analyse_constructs(measured, options);
  if (ref.time_shared) withhold_waiting_hints(out);
  return out;
}

SeriesAnalysis analyse_program(const Measurements& measurements, const std::string& input) {
  SeriesAnalysis out;
  out.input = input;
  for (const ProgramPoint& pp : measurements.program) {
    if (pp.input != input) continue;
    PointAnalysis p;
    p.threads = pp.threads;
    p.repetitions = pp.repetitions;
    p.time = pp.time;
    p.time_min = pp.time_min;
    p.time_max = pp.time_max;
    p.spread = pp.repetitions > 1 && pp.time > 0.0 ? (pp.time_max - pp.time_min) / pp.time : 0.0;
    out.points.push_back(p);
  }
  std::sort(out.points.begin(), out.points.end(),
            [](const PointAnalysis& a, const PointAnalysis& b) { return a.threads < b.threads; });
  scale_against_first(out.points);
  if (!out.points.empty()) {
    out.base_threads = out.points.front().threads;
    out.reference_threads = out.points.back().threads;
    for (PointAnalysis& p : out.points) {
      p.other = p.lost;
      p.potential_gain = std::max(0.0, p.lost);
    }
  }
  return out;
}

}  // namespace ompscale::regions::report

#include "regions/report/analysis.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "common/statistics.h"
#include "common/text_table.h"

namespace ompscale::regions::report {

namespace {

/// "1.91 s", "430 ms", "12.5 us": durations in hint texts.
std::string duration(double seconds) {
  return format_seconds(seconds);
}

std::string count(double n) {
  if (n >= 1e9) return fmt::format("{:.3g} G", n / 1e9);
  if (n >= 1e6) return fmt::format("{:.3g} M", n / 1e6);
  if (n >= 1e4) return fmt::format("{:.3g} k", n / 1e3);
  return fmt::format("{:.0f}", n);
}

CategoryCosts scaled_difference(const CategoryCosts& at_p, const CategoryCosts& at_p0,
                                double ratio) {
  return {at_p.imbalance - at_p0.imbalance * ratio,
          at_p.walkthrough - at_p0.walkthrough * ratio,
          at_p.startup - at_p0.startup * ratio,
          at_p.lock_contention - at_p0.lock_contention * ratio,
          at_p.lock_algorithm - at_p0.lock_algorithm * ratio,
          at_p.task_wait - at_p0.task_wait * ratio,
          at_p.team_start - at_p0.team_start * ratio};
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

// A region whose threads spend a tenth of its time or more in explicit tasks at some thread
// count: its barrier waits are about tasks (creation, granularity), not loop schedules. Any
// thread count, not only the reference one: waiting for a CPU on a shared machine can swell the
// region's time there until its tasks are a small share of it, and the code stays a task code.
bool is_task_region(const SeriesAnalysis& s) {
  return std::any_of(s.points.begin(), s.points.end(), [](const PointAnalysis& p) {
    return p.tasks_executed > 0.0 && p.task >= 0.1 * p.time;
  });
}

double mean_task_seconds(const PointAnalysis& p) {
  return p.tasks_executed > 0.0 ? p.task * p.threads / p.tasks_executed : 0.0;
}

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
  return out;
}

// Tasks whose runtime cost per task is this share of their own time or more are too fine.
constexpr double kTaskCostShare = 0.1;

// Explicit tasks too small for the runtime's measured cost per task: what coarsening them to
// amortise it (the runtime's cost a tenth of a task or less) would save, or nullopt when they
// are coarse enough.
std::optional<Hint> task_granularity_hint(const PointAnalysis& p, const MachineCosts& costs) {
  const double task = mean_task_seconds(p);
  if (!(task > 0.0) || !(costs.task_s > 0.0) || costs.task_s < kTaskCostShare * task) {
    return std::nullopt;
  }
  const double target = costs.task_s * (1.0 - kTaskCostShare) / kTaskCostShare;
  const double factor = target / task;  // how much larger tasks must become
  Hint h;
  h.kind = HintKind::kTaskGranularity;
  // Per thread: the tasks' runtime cost, of which coarsening by `factor` leaves 1 / factor.
  h.gain = p.tasks_executed * costs.task_s / p.threads * (1.0 - 1.0 / factor);
  h.costs = costs.source;
  h.problem = fmt::format(
      "too fine-grained tasks: {} tasks of {} on average, and the runtime costs {} of thread "
      "time per task ({:.0f}% of a task) at {} threads",
      count(p.tasks_executed), duration(task), duration(costs.task_s), 100.0 * costs.task_s / task,
      p.threads);
  h.advice = fmt::format(
      "tasks of {} or more amortise it (the runtime's cost 10% of a task): {:.1f}x larger tasks, "
      "by a cutoff that stops creating tasks sooner (a binary recursion {:.0f} level(s) higher, "
      "or a grainsize or final clause); {} fewer tasks (machine costs {})",
      duration(target), factor, std::ceil(std::log2(factor)),
      count(p.tasks_executed * (1.0 - 1.0 / factor)), costs.source);
  return h;
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
  const std::string ran = runtime_schedule_of(schedule);
  return schedule.starts_with("dynamic") || schedule.starts_with("guided") ||
         ran.starts_with("dynamic") || ran.starts_with("guided");
}

// "loop at x.cc:42" for a construct label "loop at x.cc:42".
std::string loop_words(const ConstructAnalysis& c) {
  return c.label;
}

// The imbalance hint of a region whose loops the report priced (constructs.h): each loop's best
// schedule, its net gain, or that no change pays. Without priced loops, the schedule advice of
// before, marked unpriced: its gain assumes the change is free.
Hint imbalance_hint(const RegionPoint& at, const PointAnalysis& p, const SeriesAnalysis& s,
                    const AnalysisOptions& options) {
  const HintText words = loop_imbalance_hint(at, p);
  Hint h;
  h.gain = p.cost.imbalance;
  h.problem = words.problem;
  h.advice = words.advice;
  h.costs = costs_for(options.machine_costs, options.runtime, p.threads).source;
  std::vector<std::string> loops;
  std::vector<std::string> unpriced;
  std::vector<LoopRemedy> rejected;  // priced loops whose best change does not pay
  bool any_priced = false;
  double net = 0.0;
  for (const ConstructAnalysis& c : s.constructs) {
    if (!c.price) continue;
    const bool runtime = c.schedule.starts_with("runtime");
    if (!c.price->priced) {
      unpriced.push_back(fmt::format("{}: {}", loop_words(c), price_words(*c.price, c.schedule)));
      continue;
    }
    any_priced = true;
    loops.push_back(fmt::format("{}: {}", loop_words(c), price_words(*c.price, c.schedule)));
    const ScheduleOption& top = c.price->options.front();
    const LoopRemedy remedy{c.location, c.schedule, runtime, top};
    if (c.price->best() != nullptr) {
      net += top.net();
      h.loops.push_back(remedy);
    } else {
      rejected.push_back(remedy);
    }
  }
  if (!any_priced) {
    h.priced = false;
    h.advice +=
        unpriced.empty()
            ? "; the gain assumes a schedule change is free: the loops' iterations and time "
              "are not seen (a GCC build's static loops call no runtime function), so its "
              "price is not known; a clang build, or a schedule(runtime) one, shows them"
            : "; " + fmt::format("{}", fmt::join(unpriced, "; "));
    return h;
  }
  loops.insert(loops.end(), unpriced.begin(), unpriced.end());
  // The loops' blocks are timed apart from the region's imbalance (its median over repetitions),
  // so their sum can exceed it by the noise: a schedule removes at most what was imbalance.
  h.gain = std::min(net, p.cost.imbalance);
  h.nothing_pays = h.loops.empty();
  // When nothing pays, the loops carry the best change with its net gain (negative, or within the
  // runs' spread): what the report advises against.
  if (h.nothing_pays) h.loops = std::move(rejected);
  h.advice =
      fmt::format("balance the loops: {} (machine costs {})", fmt::join(loops, "; "), h.costs);
  return h;
}

// What binds threads at their start, with either runtime.
constexpr std::string_view kBindingSetting = "OMP_PROC_BIND=true OMP_PLACES=cores";

std::string team_start_problem(const RegionCosts& at, double cost) {
  std::string problem = fmt::format(
      "team start-up: threads waited {} on average for the runtime to start the team's threads, "
      "in the executions in which it started them",
      duration(cost));
  if (at.start_cpu_wait > 0.0) {
    problem += fmt::format(
        "; of that, {} waiting for a CPU: new threads shared a CPU until the kernel moved them",
        duration(at.start_cpu_wait));
  }
  return problem;
}

// `bind`: unbound new threads waited for a CPU long enough for a hint of its own (the kernel
// placed them on a busy CPU), and binding places each thread at its start. How much of the wait
// it saves is not said: it changes from run to run (docs/ompscan-report.md, "Team start-up").
std::string team_start_advice(bool bind) {
  std::string advice =
      "nothing to change in the region: the runtime starts each thread once per run, and a run "
      "pays it once whatever the region does (a short run's share is large). A program that "
      "makes larger teams later (a new team size, nested regions) pays it again: one team size "
      "for the whole run avoids that. Waking threads that sleep between regions is not this: "
      "that is fork time (OMP_WAIT_POLICY)";
  if (bind) {
    advice += fmt::format(
        ". Bound threads ({}, or OMP_PROC_BIND=spread) start on CPUs of their own instead of "
        "sharing one until the kernel balances them, which shortens the wait for a CPU",
        kBindingSetting);
  }
  return advice;
}

void add_hints(const Region& region, const RegionPoint& at, const PointAnalysis& p,
               const AnalysisOptions& options, SeriesAnalysis& out) {
  const double threshold = options.min_hint_fraction * p.time;
  auto add = [&](HintKind kind, double gain, std::string problem, std::string advice) {
    if (!(gain > 0.0) || gain < threshold) return;
    // Removing a cause cannot save more than the region's time (sampled or noisy costs can sum
    // above it): the time after is never negative.
    gain = std::min(gain, p.time);
    Hint h;
    h.kind = kind;
    h.gain = gain;
    h.time_after = p.time - gain;
    h.problem = std::move(problem);
    h.advice = std::move(advice);
    out.hints.push_back(std::move(h));
  };
  if (region.kind == RegionKind::kSerial) {
    add(HintKind::kSerial, p.lost,
        fmt::format("serial code: {} above perfect scaling from {} thread(s){}", duration(p.lost),
                    out.base_threads,
                    out.runtime_start > 0.0
                        ? fmt::format(", besides the runtime's own start ({}, taken out: {})",
                                      duration(out.runtime_start), out.runtime_start_source)
                        : ""),
        "parallelise it or overlap it with parallel work (the gain assumes it scaled "
        "perfectly)");
    return;
  }
  const CategoryCosts& c = p.cost;
  if (is_task_region(out)) {
    const HintText balance = task_idle_hint(p);
    add(HintKind::kImbalance, c.imbalance, balance.problem, balance.advice);
  } else if (c.imbalance >= threshold) {
    Hint h = imbalance_hint(at, p, out, options);
    h.gain = std::clamp(h.gain, 0.0, p.time);
    h.time_after = p.time - h.gain;
    // A priced imbalance no schedule change pays for is said, with gain 0.
    if (h.gain >= threshold || h.nothing_pays) out.hints.push_back(std::move(h));
  }
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
  // Threads bound already were placed at their start: binding is no remedy for their wait.
  const bool bind =
      !at.bound && at.costs.start_cpu_wait > 0.0 && at.costs.start_cpu_wait >= threshold;
  add(HintKind::kTeamStart, c.team_start, team_start_problem(at.costs, c.team_start),
      team_start_advice(bind));
  std::optional<Hint> granularity;
  if (is_task_region(out)) {
    granularity =
        task_granularity_hint(p, costs_for(options.machine_costs, options.runtime, p.threads));
  }
  if (granularity) {
    add(HintKind::kTaskGranularity, granularity->gain, granularity->problem, granularity->advice);
    if (!out.hints.empty() && out.hints.back().kind == HintKind::kTaskGranularity) {
      out.hints.back().costs = granularity->costs;
    }
  }
  // What the tasks' granularity explains is not "unexplained".
  add(HintKind::kUnexplained, p.other - (granularity ? granularity->gain : 0.0),
      fmt::format("{} lost beyond perfect scaling that barriers and locks do not explain",
                  duration(p.other)),
      fmt::format("look for memory bandwidth or NUMA placement limits, false sharing, serial work "
                  "inside the region, or fork/join cost ({} per thread); hardware counters tell "
                  "them apart",
                  duration(at.costs.fork)));
  std::stable_sort(out.hints.begin(), out.hints.end(),
                   [](const Hint& a, const Hint& b) { return a.gain > b.gain; });
}

// The serial gap before the program's first parallel region holds the runtime's initialisation
// (libomp reads the machine's topology, placing the initial thread on every CPU in turn), which
// no change of the program parallelises: its measured duration comes out of every point.
void take_out_runtime_start(SeriesAnalysis& s, const AnalysisOptions& options) {
  const MachineCosts costs = costs_for(options.machine_costs, "libomp", s.points.back().threads);
  if (!costs.measured || !(costs.init_s > 0.0)) return;
  double taken = 0.0;
  for (PointAnalysis& p : s.points) {
    const double start = std::min(costs.init_s, p.time);
    p.time -= start;
    p.time_min = std::max(0.0, p.time_min - start);
    p.time_max = std::max(0.0, p.time_max - start);
    taken = std::max(taken, start);
  }
  s.runtime_start = taken;
  s.runtime_start_source = costs.source;
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
  const bool any_dispatch =
      std::find(schedules.begin(), schedules.end(), "dispatch") != schedules.end();
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
  return {c.imbalance,      c.walkthrough, c.startup,   c.lock_contention,
          c.lock_algorithm, c.task_wait,   c.team_start};
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
    case HintKind::kTeamStart:
      return "team-start";
    case HintKind::kTaskGranularity:
      return "task-granularity";
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
    p.idle_se = rp->costs.idle_se;
    p.time_exact = rp->costs.time_exact;
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
  if (region.before_first_region) take_out_runtime_start(out, options);
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
  out.constructs = analyse_constructs(measured, options);
  add_hints(region, *measured.back(), ref, options, out);
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
    p.time_noise = stats::robust_stddev(pp.times);
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

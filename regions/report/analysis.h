#pragma once
// Scalability analysis of one region (or the whole program) at one input over its thread counts:
// speedup, parallel efficiency, time lost against perfect scaling, that loss split by cause, the
// potential gain, and hints with predicted gains (docs/ompscan-report.md, "Analysis").
//
// With p0 the smallest thread count measured at this input, T(p) the region's time at p threads
// and C_k(p) the per-thread mean cost of category k (imbalance, walkthrough, startup, lock
// contention, lock algorithm):
//
//   speedup(p)        = T(p0) / T(p)
//   efficiency(p)     = speedup(p) * p0 / p                       (ScalOMP)
//   lost(p)           = T(p) - T(p0) * p0 / p                     time above perfect scaling
//   loss_k(p)         = C_k(p) - C_k(p0) * p0 / p                 each cause's share of lost(p)
//   other(p)          = lost(p) - sum_k loss_k(p)                 may be negative
//   potential gain(p) = max(0, T(p) - (T(p0) - sum_k C_k(p0)) * p0 / p)
//                     = max(0, sum_k C_k(p) + other(p))
//
// A category's loss is its growth beyond perfect scaling of what it already cost at p0, so the
// losses and `other` add up to lost(p) exactly. The potential gain also counts what the
// categories cost at p0 (uncontended lock calls cost time with one thread too): it is the time
// above perfect scaling of the overhead-free part of T(p0). Hints predict the gain of removing
// one category at p as C_k(p) — for imbalance the mean over threads of (last arrival - own
// arrival) at the region's barriers, what perfect balance would save (ScalOMP).

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "regions/report/machine_costs.h"
#include "regions/report/regions.h"
#include "regions/report/schedule_price.h"

namespace ompscale::regions::report {

/// Per-thread mean costs of the causes the tool measures (seconds).
struct CategoryCosts {
  double imbalance = 0.0;
  double walkthrough = 0.0;
  double startup = 0.0;
  double lock_contention = 0.0;
  double lock_algorithm = 0.0;
  /// Waiting for explicit tasks to end without running one (barriers after the last arrival,
  /// taskwait and taskgroup ends).
  double task_wait = 0.0;
  /// Waiting for the runtime to start threads, in the executions in which it did: paid once per
  /// thread and run, not by the region's code.
  double team_start = 0.0;

  double total() const {
    return imbalance + walkthrough + startup + lock_contention + lock_algorithm + task_wait +
           team_start;
  }
};
CategoryCosts categories(const RegionCosts& costs);

struct PointAnalysis {
  int threads = 0;
  int repetitions = 0;
  double time = 0.0;
  double time_min = 0.0;
  double time_max = 0.0;
  double spread = 0.0;  ///< (max - min) / median of the repetitions
  /// The program's rows: the repetitions' robust standard deviation (s), their run-to-run noise
  /// with one slow repetition discounted (stats::robust_stddev).
  double time_noise = 0.0;
  /// Standard error of `time` from sampling (0: every execution measured, or unknown); the 95%
  /// confidence interval of the scaled total is time +- 1.96 time_se.
  double time_se = 0.0;
  /// Sampled, but `time` sums every execution: only its split into work and the costs is
  /// estimated, the costs' sum (per thread, like them) with standard error idle_se.
  bool time_exact = false;
  double idle_se = 0.0;
  /// Every repetition at this point was time-shared (fewer CPUs than threads): its waiting
  /// costs are partly the scheduler's.
  bool time_shared = false;
  double executions = 0.0;
  double sampling_ratio = 1.0;
  double speedup = 0.0;
  double efficiency = 0.0;
  double lost = 0.0;
  CategoryCosts cost;  ///< at p: what removing each cause would save
  CategoryCosts loss;  ///< each cause's share of `lost`
  double other = 0.0;
  double potential_gain = 0.0;
  /// Explicit tasks (not a cause of loss: their time is work): created and executed by all
  /// threads, and the per-thread mean time in them (s); scaled, means over repetitions.
  double tasks_created = 0.0;
  double tasks_executed = 0.0;
  double task = 0.0;
  double barrier_task = 0.0;       ///< of `task`, run inside barriers
  double top_creator_tasks = 0.0;  ///< tasks created by the thread that created most

  bool has_tasks() const { return tasks_created > 0.0 || tasks_executed > 0.0; }
};

enum class HintKind {
  kImbalance,
  kWalkthrough,
  kStartup,
  kLockContention,
  kLockAlgorithm,
  kSerial,       ///< a serial region: the Amdahl loss
  kUnexplained,  ///< `other`: lost time the tool's categories do not explain
  kTaskWait,     ///< waiting for the last explicit tasks to end
  kTeamStart,    ///< waiting for the runtime to start threads (paid once: nothing to change)
  /// Explicit tasks too small for what the runtime costs per task (measured on this machine).
  kTaskGranularity,
};
/// "imbalance", "walkthrough", "startup", "lock-contention", "lock-algorithm", "serial",
/// "unexplained", "task-wait", "team-start", "task-granularity".
std::string_view to_string(HintKind kind);

/// One loop's schedule change, as a hint's remedy: what to write, or set, and what it buys.
struct LoopRemedy {
  Location location;      ///< the loop
  std::string now;        ///< its schedule now (schedule_words())
  bool runtime = false;   ///< a schedule(runtime) loop: OMP_SCHEDULE or omp_set_schedule sets it
  ScheduleOption change;  ///< the schedule that pays most, with what it removes and costs
};

struct Hint {
  HintKind kind = HintKind::kImbalance;
  double gain = 0.0;        ///< predicted gain at the reference thread count (s)
  double time_after = 0.0;  ///< time - gain
  std::string problem;      ///< what was measured
  std::string advice;       ///< what to try
  /// False when the gain assumes the remedy is free: a schedule change the report could not
  /// price (a GCC build's static loops are not seen).
  bool priced = true;
  /// The cause is real but no remedy the report knows pays for itself (gain 0).
  bool nothing_pays = false;
  std::vector<LoopRemedy> loops;  ///< imbalance at loops: each loop's best schedule
  std::string costs;              ///< where the prices' machine costs come from
};

/// One construct of a region (constructs.h) over the thread counts, with its hint at the
/// reference thread count.
struct ConstructAnalysis {
  std::string label;
  std::string kind;
  Location location;
  std::string schedule;
  std::vector<std::pair<int, ConstructCosts>> points;  ///< (threads, costs), ascending
  std::vector<Hint> hints;        ///< at most one: its largest cost, when worth a hint
  bool runtime_reported = false;  ///< ConstructCosts::runtime_reported
  /// Loops with imbalance at the reference thread count: the price of balancing them.
  std::optional<LoopPrice> price;

  const ConstructCosts* at(int threads) const;
};

/// Which lock cost dominates a region at the reference thread count.
enum class LockClass { kNone, kAlgorithm, kContention };
std::string_view to_string(LockClass lock_class);

/// One region (or the program) at one input.
struct SeriesAnalysis {
  std::string input;
  int base_threads = 0;               ///< p0
  int reference_threads = 0;          ///< the largest thread count: where hints and the gain apply
  std::vector<PointAnalysis> points;  ///< ascending threads
  std::vector<Hint> hints;            ///< largest gain first
  /// Hints the reference point's time sharing makes unreliable (waiting for a CPU looks like
  /// imbalance, slow barriers, contention): kept out of `hints`, listed for the record.
  std::vector<Hint> withheld;
  LockClass lock_class = LockClass::kNone;
  /// The constructs inside the region, in order of first execution (parallel regions whose
  /// profiles have them).
  std::vector<ConstructAnalysis> constructs;
  /// The serial gap before the first parallel region: the runtime's own start (s) taken out of
  /// its times (no serial code of the program), and where that figure comes from.
  double runtime_start = 0.0;
  std::string runtime_start_source;

  const PointAnalysis& reference() const { return points.back(); }
};

struct AnalysisOptions {
  /// Hints whose gain is below this fraction of the region's time at the reference thread count
  /// are left out (default 1%).
  double min_hint_fraction = 0.01;
  /// What the runtime costs on this machine (the probe's measurements; machine_costs.h), for
  /// the prices of schedule and task hints; empty: the assumed costs.
  std::vector<MachineCosts> machine_costs;
  /// The runtime the program runs on when the user follows a hint: "libomp" (clang builds), or
  /// "libgomp" for a GCC build (measured on libomp, run on its own).
  std::string runtime = "libomp";
  /// Per thread count at the input analysed, the least saving that the program's run-to-run
  /// noise lets a user see (least_visible_gain(), seconds): a schedule change must save more
  /// than this to be advised (LoopPrice::least_net). Empty: any positive net gain pays.
  std::map<int, double> least_net_s;
};

/// The region at `input`; empty `points` when the region was not measured at that input.
SeriesAnalysis analyse_region(const Region& region, const std::string& input,
                              const AnalysisOptions& options = {});

/// What to do about imbalance at loops of these schedules (schedule_words(): "static",
/// "dynamic,64", "runtime (OMP_SCHEDULE=guided)", "runtime (ran as static)", "dispatch" for
/// clang's undecoded dispatched loops), worded by what is known of them; `gomp_abi`: a GCC build,
/// whose static loops are not seen.
std::string balance_advice(const std::vector<std::string>& schedules, bool gomp_abi);

/// The constructs of the region's points at one input (ascending threads), hints at the last.
std::vector<ConstructAnalysis> analyse_constructs(const std::vector<const RegionPoint*>& points,
                                                  const AnalysisOptions& options);

/// The whole program at `input` from the run wall times: speedup, efficiency and lost time only.
SeriesAnalysis analyse_program(const Measurements& measurements, const std::string& input);

}  // namespace ompscale::regions::report

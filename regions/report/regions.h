#pragma once
// Regions across runs: which records of different runs are the same region, and what one region
// cost at each (thread count, input) once its repetitions are combined (docs/ompscan-report.md,
// "Regions across runs").
//
// Identity: parallel regions by (module basename, offset) — raw code addresses differ between
// runs because of ASLR; manual regions by name; serial regions ("serial before <id>") by the
// identity of the region they precede, looked up in their own profile.
//
// Scaling: every sum of a region covers its measured executions; it is multiplied by
// executions / executions_measured to stand for all executions. Lock sums are further sampled
// (timed <= acquisitions) and multiplied by acquisitions / timed.
//
// Repetitions of one (threads, input): every quantity comes from the median repetition by time
// (the mean of the two middle ones for an even count), so costs and time belong together; the
// minimum and maximum of all repetitions' times give the spread.

#include <optional>
#include <string>
#include <vector>

#include "regions/report/constructs.h"
#include "regions/report/read_runs.h"

namespace ompscale::regions::report {

/// What one region cost in one run, or the mean over repetitions. Seconds, scaled to all
/// executions. "Per-thread mean" divides a sum over the region's thread records by their number.
struct RegionCosts {
  double time = 0.0;       ///< wall time (master's begin -> end), scaled
  double time_se = 0.0;    ///< standard error of `time` from sampling (0: exact or unknown)
  double idle_se = 0.0;    ///< standard error of the threads' mean time not working, from sampling
  bool time_exact = true;  ///< every run's time sums all executions (sampled ones too)
  double executions = 0.0;
  double executions_measured = 0.0;
  double team = 0.0;  ///< thread records (threads that ran the region)
  double work = 0.0;  ///< per-thread mean of work
  double work_max = 0.0;
  double fork = 0.0;               ///< per-thread mean of parallel begin -> implicit task begin
  double team_start = 0.0;         ///< per-thread mean of waiting for the runtime to start threads
  double start_cpu_wait = 0.0;     ///< of team_start, the wait for a CPU (per-thread mean)
  double imbalance = 0.0;          ///< per-thread mean of sum over barriers (last - own arrival)
  double walkthrough = 0.0;        ///< per-thread mean of last arrival -> first departure
  double startup = 0.0;            ///< per-thread mean of first departure -> own departure
  double lock_algorithm = 0.0;     ///< per-thread mean of acquisitions * fastest
  double lock_contention = 0.0;    ///< per-thread mean of scaled wait - algorithm
  double lock_acquisitions = 0.0;  ///< all threads, scaled
  double barriers = 0.0;           ///< per-thread mean, scaled
  double tasks_created = 0.0;      ///< explicit tasks created (all threads), scaled
  double tasks_executed = 0.0;     ///< explicit tasks executed to completion (all threads), scaled
  double task = 0.0;               ///< per-thread mean of time in explicit tasks (part of work)
  double barrier_task = 0.0;       ///< of `task`, run inside barriers (per-thread mean)
  /// Per-thread mean of waiting for explicit tasks to end without running one: at barriers after
  /// the last arrival, and in taskwait / taskgroup ends.
  double task_wait = 0.0;
  double top_creator_tasks = 0.0;  ///< tasks created by the thread that created most, scaled
  bool lock_untimed = false;       ///< a lock site had acquisitions but no timed one: costs unknown

  /// executions_measured / executions (1 when every execution was measured).
  double sampling_ratio() const;
};

/// One lock kind at one location inside a region (totals over threads, seconds, scaled).
struct LockSite {
  std::string kind;
  std::string label;  ///< Location::label()
  double acquisitions = 0.0;
  double algorithm = 0.0;   ///< acquisitions * fastest
  double contention = 0.0;  ///< wait scaled to all acquisitions - algorithm
  double fastest_ns = 0.0;
  double mean_ns = 0.0;  ///< mean timed acquisition
};

/// A region at one (threads, input), repetitions combined.
struct RegionPoint {
  int threads = 0;
  std::string input;
  int repetitions = 0;
  RegionCosts costs;          ///< of the median repetition (the two middle ones' mean)
  std::vector<double> times;  ///< each repetition's scaled time, in run file order
  double time_min = 0.0;
  double time_max = 0.0;
  std::vector<LockSite> locks;
  std::vector<ConstructCosts> constructs;  ///< in order of first execution
  std::vector<std::string> schedules;      ///< loop schedules the runtime reported
  /// Every repetition combined was time-shared (fewer CPUs than threads); repetitions that were
  /// are left out when others were not (`time_shared_left_out` of them).
  bool time_shared = false;
  int time_shared_left_out = 0;
  /// Measured through libomp's GOMP ABI (a GCC build): its static loops call no runtime
  /// function, so OMPT sees none of them and `schedules` lists only the others.
  bool gomp_abi = false;
  /// The runs' threads were bound (OMP_PROC_BIND set, not false): the runtime placed each new
  /// thread on a CPU of its own.
  bool bound = false;

  /// (max - min) / median of the repetitions' times; 0 for one repetition.
  double spread() const;
};

struct Region {
  std::string key;  ///< identity across runs, e.g. "parallel:mandel+0x1233"
  RegionKind kind = RegionKind::kParallel;
  /// For people: "mandel.c:42 (main)", "serial before mandel.c:42 (main)", a manual name;
  /// unique among the regions (the key is appended in brackets to a label already taken).
  std::string label;
  Location location;
  std::string name;
  int nesting_level = 0;
  std::string parent_key;  ///< empty at the outermost level
  /// A serial gap before the program's first parallel region: it holds the runtime's own
  /// initialisation (libomp: the machine's topology), which is no serial code of the program.
  bool before_first_region = false;
  std::vector<RegionPoint> points;  ///< by input (Measurements::inputs order), then threads

  /// The point at (input, threads), or nullptr.
  const RegionPoint* find(const std::string& input, int threads) const;
};

struct InputInfo {
  std::string name;            ///< as the run files spell it
  int index = 0;               ///< input_index
  std::optional<double> size;  ///< the name read as a number, when it is one
};

/// The whole application at one (threads, input): run wall time (fork -> wait) and the
/// profile's process time (tool initialisation -> finalize), medians over repetitions.
struct ProgramPoint {
  int threads = 0;
  std::string input;
  int repetitions = 0;
  double time = 0.0;
  double time_min = 0.0;
  double time_max = 0.0;
  std::vector<double> times;  ///< each repetition's run wall time
  double process = 0.0;
};

struct Measurements {
  std::vector<InputInfo> inputs;   ///< by input_index, then name
  std::vector<int> thread_counts;  ///< ascending
  std::vector<Region> regions;     ///< in order of first appearance
  std::vector<ProgramPoint> program;
  /// Region records without a measured execution (nothing to scale): left out.
  std::size_t unmeasured_records = 0;
};

/// The identity of `region` within `profile` (see the file comment).
std::string region_key(const RegionRecord& region, const Profile& profile);

/// One run's scaled costs of one region (executions_measured > 0), its lock sites and its
/// constructs; every scaled sum is also multiplied by `calibration` (calibration.h).
RegionCosts run_costs(const RegionRecord& region, std::vector<LockSite>* locks = nullptr,
                      double calibration = 1.0, std::vector<ConstructCosts>* constructs = nullptr);

/// Identity and aggregation over the usable runs.
Measurements aggregate(const std::vector<RunFile>& runs);

}  // namespace ompscale::regions::report

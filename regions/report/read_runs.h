#pragma once
// Reading `ompscan run` output: every run file of a directory (docs/ompscan-formats.md) with the
// tool profile inside, as plain structs. Times stay in nanoseconds as the files hold them; all
// counts are doubles (the analysis scales and averages them). Unknown fields are ignored; a
// missing optional field reads as 0 / empty ("not measured").

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "regions/region_kind.h"
#include "regions/report/machine_costs.h"

namespace ompscale::regions::report {

/// The run files' nanoseconds to the report's seconds.
inline constexpr double kSecondsPerNs = 1e-9;

/// Where a region (or lock) is in the application; module, build_id and offset always present.
struct Location {
  std::string module;
  std::string build_id;
  std::string offset;  ///< "0x1233", as the tool wrote it
  std::string file;    ///< empty when unresolved
  int line = 0;
  std::string function;

  bool resolved() const { return !file.empty(); }
  /// "mandel.c:42 (main)" when resolved, "mandel+0x1233" otherwise (module basename + offset).
  std::string label() const;
};

/// One thread's sums over a region's measured executions.
struct ThreadRecord {
  int thread = 0;
  double work_ns = 0.0;
  double fork_ns = 0.0;
  double imbalance_ns = 0.0;
  double walkthrough_ns = 0.0;
  double startup_ns = 0.0;
  double barriers = 0.0;
  double lock_wait_ns = 0.0;
  double lock_acquisitions = 0.0;
  double lock_timed = 0.0;
  double iterations = 0.0;
  double task_ns = 0.0;          ///< time in explicit tasks (included in work_ns)
  double barrier_task_ns = 0.0;  ///< of task_ns, run inside barriers
  /// Waiting for explicit tasks to end without running one: at barriers after the last arrival
  /// (task_wait_ns) and in taskwait / taskgroup ends (taskwait_ns).
  double task_wait_ns = 0.0;
  double taskwait_ns = 0.0;
  double tasks_created = 0.0;  ///< explicit tasks this thread created
  /// Waiting for the runtime to start threads, in executions in which it did (the thread's fork
  /// and the part of its wait at the first barrier the late start caused; not in fork_ns or
  /// imbalance_ns).
  double team_start_ns = 0.0;
  /// Of team_start_ns, the wait for a CPU before the first barrier (a new thread sharing a CPU
  /// until the kernel moves it; not in work_ns).
  double start_cpu_wait_ns = 0.0;
};

/// One lock kind at one code location inside a region, over the region's measured executions.
struct LockRecord {
  std::string kind;  ///< critical, lock, nest_lock, ordered, atomic, reduction
  Location location;
  double acquisitions = 0.0;  ///< every acquisition, timed or not
  double timed = 0.0;         ///< acquisitions whose duration was recorded
  double wait_ns = 0.0;       ///< sum of the timed acquisitions' durations
  double fastest_ns = 0.0;    ///< fastest timed acquisition
  /// The tool's estimate of the wait of all `acquisitions`: each timed wait weighted by the
  /// acquisitions it stands for (its timing is denser early, so wait_ns * acquisitions / timed
  /// would be biased). 0 when the profile has none.
  double wait_estimate_ns = 0.0;
};

/// Who chose the schedule a schedule(runtime) loop ran with (the profile's
/// "omp_schedule_source").
enum class ScheduleSource {
  kEnvironment,       ///< OMP_SCHEDULE named it: "runtime (OMP_SCHEDULE=guided,7)"
  kProgram,           ///< omp_set_schedule, over another OMP_SCHEDULE: "runtime (omp_set_schedule:
                      ///< static)"
  kProgramOrDefault,  ///< OMP_SCHEDULE unset (or not recorded): "runtime (ran as static)"
};

/// A loop's schedule in words: "dynamic,64", "static", "runtime" (what it ran with unknown),
/// a schedule(runtime) loop with what it ran with and who chose it (ScheduleSource), "dispatch"
/// (clang, not decoded), from a profile's loop or construct entry.
std::string schedule_words(const std::string& schedule, double chunk,
                           const std::string* omp_schedule,
                           ScheduleSource source = ScheduleSource::kEnvironment);

/// What a schedule(runtime) loop ran with, from schedule_words()' text ("guided" for "runtime
/// (OMP_SCHEDULE=guided)" and the other sources' words); empty when not known.
std::string runtime_schedule_of(const std::string& words);

/// Who chose it, from the same text; kProgramOrDefault when it does not say.
ScheduleSource schedule_source_of(const std::string& words);

struct LoopRecord {
  std::string schedule;  ///< schedule_words()
  double executions = 0.0;
};

/// One construct inside a parallel region (a worksharing construct with the barrier that ends
/// it, a standalone barrier, a taskwait or taskgroup, the region's end): per-thread sums.
struct ConstructRecord {
  std::string kind;  ///< loop, single, sections, taskloop, ..., barrier, taskwait, taskgroup, end
  Location location;
  std::string schedule;  ///< loops: schedule_words()
  /// Set by the report (constructs.h) when the runtime reported a code address inside itself
  /// (its library's name) or none: `location` is then the region's.
  std::string reported_in;
  struct Thread {
    int thread = 0;
    double executions = 0.0;
    double iterations = 0.0;  ///< the runtime's counts (libomp: the loop's trip count), summed
    double time_ns = 0.0;     ///< inside the worksharing construct (0 for waits)
    double barriers = 0.0;
    double imbalance_ns = 0.0;
    double walkthrough_ns = 0.0;
    double startup_ns = 0.0;
    double task_wait_ns = 0.0;
  };
  std::vector<Thread> threads;
};

std::string_view to_string(RegionKind kind);

struct RegionRecord {
  long long id = 0;
  RegionKind kind = RegionKind::kParallel;
  std::string name;
  Location location;
  std::optional<long long> parent;
  int nesting_level = 0;
  double executions = 0.0;
  double executions_measured = 0.0;
  int team_min = 0;
  int team_max = 0;
  double wall_ns = 0.0;  ///< sum over measured executions
  std::vector<ThreadRecord> threads;
  std::vector<LockRecord> locks;
  std::vector<LoopRecord> loops;
  std::vector<ConstructRecord> constructs;
  double tasks_created = 0.0;   ///< explicit tasks, all threads, over measured executions
  double tasks_executed = 0.0;  ///< explicit tasks completed, likewise
  /// The profile's sums are Horvitz-Thompson estimates of the totals over all executions
  /// (sampling.estimator "horvitz-thompson"); otherwise sums over the measured executions, to be
  /// scaled by executions / executions_measured (profiles of earlier tools).
  bool weighted = false;
  double wall_se_ns = 0.0;  ///< standard error of the estimated total wall_ns (0: exact or unknown)
  /// Standard error of the threads' mean time not working, sampled against the exact wall time
  /// (0: every execution measured, or a profile of an earlier tool).
  double idle_se_ns = 0.0;
  bool wall_exact = false;  ///< wall_ns sums every execution's time (the tool calibrates to it)
};

/// What a region's sums are multiplied by to stand for all its executions: 1 for weighted
/// profiles, executions / executions_measured otherwise (0 without a measured execution).
double sampling_scale(const RegionRecord& region);

struct Profile {
  std::string tool_version;
  std::string runtime_version;
  double process_ns = 0.0;
  int max_threads = 0;
  std::string sampling_policy;
  std::string estimator;  ///< "horvitz-thompson", or "" (scaled by executions / measured)
  double dropped_events = 0.0;
  double buffer_full_events = 0.0;
  std::vector<RegionRecord> regions;
};

struct RunFile {
  std::string path;
  std::string run_id;
  std::vector<std::string> command;
  /// The thread count the run's teams had: the largest team of its outermost parallel regions,
  /// as the tool saw it (the requested count without a profile or parallel region).
  int threads = 0;
  int requested_threads = 0;  ///< the run file's "threads": what OMP_NUM_THREADS asked for
  std::string input;
  int input_index = 0;
  int repetition = 0;
  bool oversubscribed = false;
  std::string bind;     ///< OMP_PROC_BIND the application saw; "" when unset
  bool failed = false;  ///< status "failed"
  std::optional<int> exit_status;
  std::optional<int> signal;
  double wall_ns = 0.0;
  double cpu_ns = 0.0;  ///< user + system time of the application (cpu), 0 when not recorded
  std::string runtime_library;  ///< runtime.library: the OpenMP runtime the loader mapped
  bool gomp_abi = false;        ///< a GCC binary run on libomp's GOMP ABI
  bool native = false;          ///< without the tool: its own runtime, a knob, or libomp
  /// A native run's runtime setting ("libgomp", "passive", "active", "spincount", "libomp").
  std::string variant;
  /// The runtime knobs the run's environment set: "OMP_WAIT_POLICY=active GOMP_SPINCOUNT=...".
  std::string knobs;
  /// Fewer CPUs than threads during the run (time_sharing.time_shared), and why.
  bool time_shared = false;
  std::string time_sharing_reason;
  std::optional<Profile> profile;
  std::string profile_error;
};

/// The run files of one directory, by what the report can use them for.
struct RunSet {
  std::string directory;
  /// With a profile: status ok, or failed (an unexpected exit status, a signal) after the tool
  /// wrote its whole profile at finalize: analysed, and listed with their exit status.
  std::vector<RunFile> usable;
  std::vector<RunFile> failed;           ///< status failed without a profile: listed only
  std::vector<RunFile> without_profile;  ///< status ok but the tool wrote no profile
  /// Files that are not run files (not JSON, or no ompscan-run format): "notes.json (not JSON)".
  std::vector<std::string> skipped;
  std::vector<RunFile> native;  ///< on the application's own runtime (no tool): wall, CPU time
  /// The machine's costs `ompscan run` measured (format ompscan-probe-run-1, machine_costs.h).
  std::vector<ProbeFile> probes;
};

/// How a failed run ended, as its run file says: "exit status 1" or "signal 6".
std::string describe_end(const RunFile& run);

/// Parses one run file. Throws InputError(path, 0, cause) when `text` is not ompscan-run-1 JSON
/// (the cause names the offending field, e.g. "profile.regions[2].wall_ns: expected a number").
RunFile parse_run_file(std::string_view text, const std::string& path);

/// Reads every "*.json" file of `directory` (not recursive, sorted by name) as a run file; files
/// that are not run files at all (not JSON, no ompscan-run format) are skipped and listed. Throws
/// UsageError when the directory does not exist or cannot be read, and InputError for the first
/// run file with a broken field.
RunSet read_run_directory(const std::string& directory);

}  // namespace ompscale::regions::report

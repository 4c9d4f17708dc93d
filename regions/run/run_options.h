#pragma once
// Everything `ompscan run` is told on its command line, with the defaults it documents
// (docs/ompscan-run.md).

#include <string>
#include <vector>

namespace ompscale::regions {

struct RunOptions {
  /// The application and its arguments, as given after `--`. "{threads}" and "{input}" anywhere
  /// in them are replaced per run (like PaScal's __nt__). Required.
  std::vector<std::string> command;

  /// Thread counts, in ompbench's syntax (platforms::parse_thread_counts): "1,2,4", "1-8", "po2",
  /// "odd", "even", "8x", "linear", "all" or a mix. Each run also gets OMP_NUM_THREADS.
  std::string threads = "po2";
  /// Largest count that class names and "all" expand to; 0 = the machine's hardware threads.
  int max_threads = 0;
  /// Allow counts above the hardware threads; such runs are marked "oversubscribed": true.
  bool oversubscribe = false;

  /// Inputs, each replacing "{input}"; empty = no input actuator (and "{input}" is an error).
  std::vector<std::string> inputs;
  /// OMP_PROC_BIND and OMP_PLACES for every run; "" = as inherited from the environment.
  std::string bind;
  std::string places;
  /// Runs per (input, thread count). Repetitions are the outermost loop, so a slow phase of the
  /// machine spreads over all configurations instead of hitting one.
  int reps = 1;
  /// The exit status a successful run ends with (XSBench and RSBench exit 1 on any non-default
  /// input); runs ending otherwise are recorded as failed (their profiles are kept).
  int expect_exit = 0;
  /// Seconds after which a run's process group is killed (recorded as failed); 0 = no limit.
  double timeout_seconds = 0;

  /// Directory of the run files (DIR/<run_id>.json) and the application's output
  /// (DIR/<run_id>.log). Created when missing.
  std::string output_dir = "ompscan-runs";
  /// Rerun runs whose file exists; by default they are skipped (resume).
  bool force = false;

  /// libompscan.so; "" = $OMPSCAN_TOOL, else next to the ompscan binary, else ../lib/.
  std::string tool;
  /// The libomp that GCC-built (libgomp) applications run on; "" = the libomp.so.5 of the LLVM
  /// this ompscan was built against (OMPSCALE_LIBOMP_DIR).
  std::string libomp;

  /// For GCC-built applications (measured on libomp through its GOMP ABI), also run each
  /// (input, thread count) once on the application's own libgomp without the tool, for its wall
  /// and CPU time: the report compares the runtimes.
  bool native_runs = true;

  /// Before the runs, measure what the OpenMP runtime costs on this machine (ompscan-probe:
  /// loop chunk dispatch, explicit tasks, cache lines, start-up) for the prices of the report's
  /// hints, a few repetitions per runtime (DIR/probe-<runtime>.json, machine_probe.h).
  bool probe = true;

  /// Progress line on stderr: "auto" (when stderr is a terminal), "always", "never".
  std::string progress = "auto";
  /// The command line as typed, for the resume hint.
  std::vector<std::string> command_line;
};

}  // namespace ompscale::regions

#pragma once
// Everything `ompbench` (the sweep) is told on its command line, with the defaults it documents.

#include <string>
#include <vector>

namespace ompscale::microbench {

struct RunOptions {
  /// Thread counts: "1,2,4", "1-64", "po2", "odd", "even", "8x", "linear", "all" (every count up
  /// to the hardware threads; with --oversubscribe up to --max-threads), or a mix ("1,po2").
  std::string threads = "1,2";
  /// Largest thread count class names expand to (0 = the platform's hardware threads).
  int max_threads = 0;
  /// OMP_PROC_BIND values, or "all" (spread, close, master, false).
  std::vector<std::string> binds = {"spread"};
  /// OMP_PLACES: cores, threads or sockets (ignored with bind=false).
  std::vector<std::string> places = {"cores"};
  /// "gnu", "llvm", or "both" (default: both where the clang worker was built).
  std::string runtime;
  /// Construct names; empty = the suites' constructs.
  std::vector<std::string> constructs;
  /// Suites ("sync", "sched", "data", "task", "all") when no construct is named. Default sync.
  std::vector<std::string> suites;
  /// "auto" (direct where it applies, else epcc), "direct", "epcc" or "both".
  std::string method = "auto";
  /// Parameter values for parameterised constructs (chunk sizes, array sizes); empty = defaults.
  std::vector<std::string> chunks;
  std::vector<std::string> array_sizes;
  /// Valid values per configuration (and metric), after warm-up. The paper used 100.
  int reps = 100;
  /// Values per batch: a configuration is measured in reps / batch interleaved batches.
  int batch = 5;
  /// Allow thread counts above the hardware threads (rows are marked oversubscribed).
  bool oversubscribe = false;
  /// Output CSV; "" or "-" = stdout. An existing file is resumed (appended to).
  std::string output;
  /// JSON sidecar; "" = OUTPUT.meta.json when writing a file, none on stdout.
  std::string meta;
  /// Platform description name or file for classes and the `platform` column; "" = detect.
  std::string platform;
  std::string run_id;  // "" = the start time and random bits (driver/run_id.h)
  /// A batch is re-measured when its canary exceeds slow_factor x the run's reference canary.
  double slow_factor = 1.5;
  /// The same for the compute canary, whose quiet spread is much smaller.
  double compute_slow_factor = 1.15;
  /// Extra batches per configuration for re-measurement (slow phases, missed windows).
  int max_remeasure = 4;
  /// The machine's canary history across runs: "" = the default location, "none" = none.
  std::string canary_store;
  /// Longest total wait (s) for the machine's best state (canary_store.h) before measuring in the
  /// current one.
  double max_wait = 20;
  /// Canary exchanges per measurement (0 disables the canary and re-measurement).
  int canary_exchanges = 200;
  /// Seed of the interleaving order.
  unsigned seed = 1;
  /// EPCC method settings.
  double epcc_delay_us = 0.1;
  double epcc_test_time_us = 1000;
  /// Progress bar on stderr: "auto" (when stderr is a terminal), "always", "never".
  std::string progress = "auto";
  /// Directory holding ompbench-worker-gnu/-llvm ("" = next to the ompbench binary).
  std::string worker_dir;
  /// Runtime builds to measure instead of the installed ones: "gnu=PATH", "llvm=PATH", or a
  /// PATH named libgomp* / libomp* (driver/runtime_library.h).
  std::vector<std::string> runtime_libs;
  /// The command line, for the sidecar and the resume hint.
  std::vector<std::string> command_line;
};

}  // namespace ompscale::microbench

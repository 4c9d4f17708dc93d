#include "regions/run/run_command.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "common/cli_help.h"
#include "common/error.h"
#include "regions/run/run_options.h"
#include "regions/run/sweep.h"

namespace ompscale::regions {

namespace {

constexpr char kUsage[] = "ompscan run [options] -- APP [ARGS...]";

}  // namespace

int run_command(int argc, char** argv, const char* program) {
  RunOptions o;
  o.command_line.emplace_back(program);
  for (int i = 0; i < argc; ++i) o.command_line.emplace_back(argv[i]);
  // Everything after the first "--" is the application's, untouched by the option parser (its
  // own options must not be taken for ours).
  int options_end = argc;
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--") {
      options_end = i;
      for (int j = i + 1; j < argc; ++j) o.command.emplace_back(argv[j]);
      break;
    }

  CLI::App app{
      "ompscan run: runs APP once per (repetition, input, thread count) under the OMPT tool "
      "libompscan.so and writes one run file per run, DIR/<run_id>.json (docs/ompscan-run.md). "
      "{threads} and {input} in APP's arguments are replaced per run.",
      "ompscan run"};
  app.footer(std::string("Usage: ") + kUsage);
  wrap_help(app);
  app.add_option("--threads", o.threads,
                 "Thread counts: 1,2,4 | 1-8 | po2 | odd | even | 8x | linear | all (also "
                 "OMP_NUM_THREADS)")
      ->capture_default_str();
  app.add_option("--max-threads", o.max_threads,
                 "Largest count class names and 'all' expand to (default: hardware threads)");
  app.add_flag("--oversubscribe", o.oversubscribe,
               "Allow more threads than hardware threads (runs marked oversubscribed)");
  app.add_option("--inputs", o.inputs, "Inputs, each replacing {input} in APP's arguments")
      ->expected(1, -1);
  app.add_option("--bind", o.bind,
                 "OMP_PROC_BIND for every run: spread, close, master, primary, true, false "
                 "(default: as inherited)");
  app.add_option("--places", o.places,
                 "OMP_PLACES for every run: threads, cores, sockets, ll_caches, numa_domains, "
                 "NAME(COUNT) or an explicit list (default: as inherited)");
  app.add_option("--reps", o.reps, "Runs per input and thread count (interleaved)")
      ->capture_default_str();
  app.add_option("--expect-exit", o.expect_exit,
                 "The exit status of a successful run (default 0); others are recorded as failed")
      ->capture_default_str();
  app.add_option("--timeout", o.timeout_seconds,
                 "Seconds after which a run is killed and recorded as failed (0: no limit)")
      ->capture_default_str();
  app.add_option("-o,--output", o.output_dir, "Directory of the run files")->capture_default_str();
  app.add_flag("--force", o.force, "Make runs again whose run file exists (default: resume)");
  app.add_option("--tool", o.tool,
                 "libompscan.so (default: $OMPSCAN_TOOL, else next to ompscan, else ../lib)");
  app.add_option("--libomp", o.libomp,
                 "libomp that GCC-built applications run on (default: the LLVM libomp.so.5 "
                 "ompscan was built with)");
  app.add_flag("!--no-native-runs", o.native_runs,
               "GCC-built applications: no runs on their own libgomp (default: one per input and "
               "thread count, wall and CPU time only, compared with libomp in the report)");
  app.add_flag("!--no-probe", o.probe,
               "Do not measure the runtime's costs on this machine before the runs (default: "
               "ompscan-probe, about a second per runtime; the report prices its hints with them)");
  app.add_option("--progress", o.progress, "Progress line on stderr: auto, always, never")
      ->capture_default_str();
  std::vector<std::string> stray;
  app.add_option("stray", stray)->group("");  // words before "--": reported below

  if (const auto status =
          parse_command_line(app, options_end, argv, "ompscan", "ompscan run --help"))
    return *status;
  return run_reporting_errors("ompscan", [&] {
    if (!stray.empty())
      throw UsageError("'" + stray.front() +
                       "': put the application and its arguments after --: " + kUsage);
    if (o.command.empty()) throw UsageError(std::string("no application given: ") + kUsage);
    return run_sweep(o);
  });
}

}  // namespace ompscale::regions

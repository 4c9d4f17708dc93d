#include "microbench/driver/cli.h"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <exception>
#include <map>

#include "common/cli_help.h"
#include "common/error.h"
#include "common/output_file.h"
#include "common/terminal.h"
#include "common/text.h"
#include "microbench/catalogue.h"
#include "microbench/driver/import_epcc.h"
#include "microbench/driver/summary.h"
#include "microbench/driver/sweep.h"
#include "platforms/platform.h"
#include "platforms/thread_class.h"

namespace ompscale::microbench {

namespace {

int list_constructs() {
  Suite current = Suite::kTask;
  bool first = true;
  for (const ConstructInfo& c : catalogue()) {
    if (first || c.suite != current) {
      std::printf("%s%s suite:\n", first ? "" : "\n", to_string(c.suite));
      current = c.suite;
      first = false;
    }
    std::string methods = c.direct && c.epcc ? "direct, epcc" : c.direct ? "direct" : "epcc";
    std::string param = c.param.empty() ? "" : fmt::format(" [{}]", c.param);
    // On a terminal the description wraps under its own column.
    const std::string first_column = fmt::format("  {:<26} ", c.name);
    std::fputs(wrap(fmt::format("{}{} ({})", c.description, param, methods),
                    output_width(STDOUT_FILENO), first_column, std::string(29, ' '))
                   .c_str(),
               stdout);
  }
  return 0;
}

int print_platform(const std::string& name, int max_threads) {
  const platforms::Platform detected = platforms::detect_platform();
  const platforms::Platform platform = name.empty() ? detected : platforms::find_platform(name);
  std::printf("platform: %s\n", platform.name.c_str());
  std::fputs(wrap(platform.description, output_width(STDOUT_FILENO), "", "  ").c_str(), stdout);
  std::printf(
      "topology: %d board(s) x %d socket(s) x %d core(s) x %d thread(s) per core = %d "
      "hardware threads, %d NUMA node(s)\n",
      platform.boards, platform.sockets_per_board, platform.cores_per_socket,
      platform.threads_per_core, platform.hardware_threads(), platform.numa_nodes);
  const int limit = max_threads > 0 ? max_threads : platform.hardware_threads();
  std::printf("thread counts up to %d per class:\n", limit);
  std::vector<platforms::ThreadClass> classes = platform.classes;
  for (const auto& extra :
       {platforms::ThreadClass::multiple_of_8(), platforms::ThreadClass::linear()})
    if (std::find(classes.begin(), classes.end(), extra) == classes.end()) classes.push_back(extra);
  for (const platforms::ThreadClass& c : classes) {
    std::string counts;
    for (int t : c.thread_counts(limit)) {
      if (!counts.empty()) counts += ',';
      counts += std::to_string(t);
    }
    std::printf("  %-8s %s\n", c.name().c_str(), counts.empty() ? "(none)" : counts.c_str());
  }
  if (!name.empty() && platform.hardware_threads() > detected.hardware_threads())
    std::printf(
        "note: this machine has %d hardware threads; counts above it need --oversubscribe\n",
        detected.hardware_threads());
  return 0;
}

// Imports every file and writes all rows at once: a bad file anywhere means no output at all.
// Repetition numbers continue across files, so runs in separate files stay distinct values.
int import_epcc_files(const std::vector<std::string>& files, const std::string& output,
                      const EpccImportOptions& options, const std::vector<std::string>& metrics) {
  std::string csv = results_header();
  std::map<std::string, int> rep_offset;  // per construct/param/threads/metric
  for (const std::string& file : files) {
    EpccImport imported = import_epcc(read_input(file), file, options);
    for (const std::string& warning : imported.warnings)
      std::fprintf(stderr, "ompbench: warning: %s\n", warning.c_str());
    std::map<std::string, int> next;
    for (ResultRow& row : imported.rows) {
      if (!metrics.empty() &&
          std::find(metrics.begin(), metrics.end(), row.metric) == metrics.end())
        continue;
      const std::string key =
          fmt::format("{}/{}/{}/{}", row.construct, row.param_value, row.threads, row.metric);
      row.rep += rep_offset[key];
      next[key] = std::max(next[key], row.rep + 1);
      csv += format_row(row);
    }
    for (const auto& [key, rep] : next) rep_offset[key] = rep;
  }
  write_output(output, csv);
  return 0;
}

// ompbench's own options (the sweep's).
void add_run_options(CLI::App& app, RunOptions& o) {
  app.add_option("--threads", o.threads,
                 "Thread counts: 1,2,4 | 1-64 | po2 | odd | even | 8x | linear | all")
      ->capture_default_str();
  app.add_option("--max-threads", o.max_threads,
                 "Largest count class names expand to (default: hardware threads)");
  app.add_option("--bind", o.binds, "OMP_PROC_BIND: spread, close, master, false, all")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--places", o.places, "OMP_PLACES: cores, threads, sockets")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--runtime", o.runtime,
                 "gnu (gcc + libgomp), llvm (clang + libomp) or both "
                 "(default: both when the clang worker was built)");
  app.add_option("--runtime-lib", o.runtime_libs,
                 "Measure this build of a runtime instead of the installed one: gnu=PATH, "
                 "llvm=PATH, or a PATH named libgomp*/libomp* (repeatable)");
  app.add_option("--construct", o.constructs, "Constructs to measure (see `ompbench list`)")
      ->delimiter(',');
  app.add_option("--suite", o.suites, "sync, sched, data, task, all (default: sync)")
      ->delimiter(',');
  app.add_option("--method", o.method, "auto (direct where it applies), direct, epcc, both")
      ->capture_default_str();
  app.add_option("--chunk", o.chunks, "Chunk sizes for schedules and taskloop (default 16)")
      ->delimiter(',');
  app.add_option("--array-size", o.array_sizes,
                 "Array sizes (doubles) for the data constructs (default 1,27,729,19683)")
      ->delimiter(',');
  app.add_option("--reps", o.reps, "Valid values per configuration")->capture_default_str();
  app.add_option("--batch", o.batch, "Values per interleaved batch")->capture_default_str();
  app.add_flag("--oversubscribe", o.oversubscribe,
               "Allow more threads than hardware threads (rows marked oversubscribed=1)");
  app.add_option("-o,--output", o.output,
                 "Results CSV; appended to and resumed when it exists (default: stdout)");
  app.add_option("--meta", o.meta, "JSON sidecar (default: OUTPUT.meta.json; none on stdout)");
  app.add_option("--platform", o.platform,
                 "Platform description (name or file) for thread classes and the platform column "
                 "(default: detected, named after the host)");
  app.add_option("--run-id", o.run_id,
                 "Run id written into every row (default: the start time and random bits, unique)");
  app.add_option("--slow-factor", o.slow_factor,
                 "Re-measure a batch whose canary exceeds this multiple of the reference")
      ->capture_default_str();
  app.add_option("--compute-slow-factor", o.compute_slow_factor,
                 "Re-measure a batch whose compute canary exceeds this multiple of the reference")
      ->capture_default_str();
  app.add_option("--canary-store", o.canary_store,
                 "The machine's canary history across runs (default "
                 "~/.cache/ompscale/canaries.json; none: no history)");
  app.add_option("--max-wait", o.max_wait,
                 "Seconds to wait for the machine's best state before measuring in a slow one")
      ->capture_default_str();
  app.add_option("--max-remeasure", o.max_remeasure,
                 "Extra batches per configuration for slow phases and missed windows")
      ->capture_default_str();
  app.add_option("--canary", o.canary_exchanges,
                 "Round trips per noise canary (0: no canary, no re-measurement)")
      ->capture_default_str();
  app.add_option("--seed", o.seed, "Seed of the interleaved order")->capture_default_str();
  app.add_option("--epcc-delay", o.epcc_delay_us, "EPCC delay per construct execution (us)")
      ->capture_default_str();
  app.add_option("--epcc-test-time", o.epcc_test_time_us,
                 "EPCC target time per outer repetition (us)")
      ->capture_default_str();
  app.add_option("--progress", o.progress, "Progress bar on stderr: auto, always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  app.add_option("--worker-dir", o.worker_dir,
                 "Directory of ompbench-worker-gnu/-llvm (default: next to ompbench)");
}

// The subcommands and the options CLI11 writes into while parsing.
struct Subcommands {
  CLI::App* list = nullptr;
  CLI::App* platform = nullptr;
  CLI::App* import = nullptr;
  CLI::App* summary = nullptr;
  std::string platform_name;
  int platform_max = 0;
  std::vector<std::string> import_files;
  std::string import_output;
  EpccImportOptions import_options;
  std::string import_metrics;  // one string, split below: a vector option would swallow the files
  std::string summary_file, summary_output;
  SummaryOptions summary_options;
  bool summary_wide = false;
};

void add_subcommands(CLI::App& app, Subcommands& c) {
  c.list = app.add_subcommand("list", "Print the constructs with a one-line description");
  c.platform =
      app.add_subcommand("platform", "Print the detected topology and each class's thread counts");
  c.platform->add_option("--platform", c.platform_name, "A description (name or file) instead");
  c.platform->add_option("--max-threads", c.platform_max,
                         "List counts up to this (default: hardware)");

  c.import = app.add_subcommand(
      "import-epcc", "Turn EPCC syncbench/schedbench/taskbench/arraybench output into results CSV");
  c.import->add_option("files", c.import_files, "EPCC output files")->required();
  c.import->add_option("-o,--output", c.import_output, "Results CSV (default: stdout)");
  c.import->add_option("--threads", c.import_options.threads,
                       "Thread count for files whose header does not state it");
  c.import->add_option("--bind", c.import_options.bind, "OMP_PROC_BIND of the EPCC run");
  c.import->add_option("--places", c.import_options.places, "OMP_PLACES of the EPCC run");
  c.import->add_option("--runtime", c.import_options.runtime, "Runtime, e.g. libgomp or libomp");
  c.import->add_option("--runtime-version", c.import_options.runtime_version, "Runtime version");
  c.import->add_option("--compiler", c.import_options.compiler, "Compiler, e.g. gcc-12.2.0");
  c.import->add_option("--platform", c.import_options.platform, "Platform name");
  c.import->add_option("--run-id", c.import_options.run_id, "Run id for the rows");
  c.import->add_option(
      "--metric", c.import_metrics,
      "Keep only these metrics, e.g. overhead or overhead,time_min (default: all)");

  c.summary = app.add_subcommand(
      "summary",
      "Per configuration: n, mean, median, min, max, sd, 95% CI, outliers (EPCC's stats)");
  c.summary->add_option("file", c.summary_file, "Results CSV (- for stdin)")->required();
  c.summary->add_option("--format", c.summary_options.format, "text or csv")
      ->check(CLI::IsMember({"text", "csv"}))
      ->capture_default_str();
  c.summary->add_flag("--include-invalid", c.summary_options.include_invalid,
                      "Also use valid=0 values");
  c.summary->add_option("-o,--output", c.summary_output, "Output file (default: stdout)");
  c.summary->add_flag("--wide", c.summary_wide,
                      "One line per configuration, however wide (default on a terminal: fit it)");
}

// The parsed command: a subcommand or the sweep.
int dispatch(const Subcommands& c, const RunOptions& o) {
  if (c.list->parsed()) return list_constructs();
  if (c.platform->parsed()) return print_platform(c.platform_name, c.platform_max);
  if (c.summary->parsed()) {
    SummaryOptions options = c.summary_options;
    const bool to_terminal = c.summary_output.empty() || c.summary_output == "-";
    options.width = c.summary_wide || !to_terminal ? 0 : output_width(STDOUT_FILENO);
    write_output(c.summary_output,
                 summarize_results(read_input(c.summary_file), c.summary_file, options));
    return 0;
  }
  if (c.import->parsed())
    return import_epcc_files(
        c.import_files, c.import_output, c.import_options,
        c.import_metrics.empty() ? std::vector<std::string>{} : split(c.import_metrics, ','));
  return run_sweep(o);
}

}  // namespace

int run_cli(int argc, char** argv) {
  CLI::App app{
      "ompbench: microbenchmarks of OpenMP constructs (direct per-construct timing with clock "
      "calibration and window release, and the EPCC method), swept over thread counts, bindings "
      "and runtimes. Writes tidy CSV for `modeler fit`."};
  app.set_version_flag("--version", version_string());
  app.require_subcommand(0, 1);
  wrap_help(app);

  RunOptions o;
  for (int i = 0; i < argc; ++i) o.command_line.push_back(argv[i]);
  add_run_options(app, o);
  Subcommands c;
  add_subcommands(app, c);

  if (const auto unknown = unknown_subcommand(app, argc, argv)) {
    std::fprintf(stderr, "ompbench: %s (see ompbench --help)\n", unknown->c_str());
    return 2;
  }
  if (const auto status = parse_command_line(app, argc, argv, "ompbench",
                                             help_command("ompbench", app, argc, argv)))
    return *status;
  return run_reporting_errors("ompbench", [&] { return dispatch(c, o); });
}

}  // namespace ompscale::microbench

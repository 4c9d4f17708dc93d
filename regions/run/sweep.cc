#include "regions/run/sweep.h"

#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>

#include "common/error.h"
#include "common/host_name.h"
#include "common/interrupt.h"
#include "common/library_shim.h"
#include "common/output_file.h"
#include "common/temporary_directory.h"
#include "common/utc_time.h"
#include "platforms/platform.h"
#include "regions/run/elf_file.h"
#include "regions/run/gomp_abi.h"
#include "regions/run/launcher.h"
#include "regions/run/loaded_library.h"
#include "regions/run/machine_probe.h"
#include "regions/run/perf_counters.h"
#include "regions/run/plan.h"
#include "regions/run/profile_locations.h"
#include "regions/run/progress_line.h"
#include "regions/run/rapl.h"
#include "regions/run/run_environment.h"
#include "regions/run/run_file.h"
#include "sync/clock.h"

namespace ompscale::regions {

namespace {

namespace fs = std::filesystem;

// What ompscan learns once per executable before any run.
struct Executable {
  std::string path;  // resolved through PATH
  bool gomp_abi = false;
  bool dynamic = false;
  std::string runtime_library;
  std::string native_library;  // GCC binaries: the libgomp their native runs load
  // Not an ELF binary (a wrapper script): what it starts cannot be checked beforehand, so the
  // GOMP shim goes on the library path of the whole process tree (a GCC binary it runs then
  // loads libomp and the tool; one needing libgomp-only symbol versions fails to load).
  bool script = false;
};

std::optional<std::string> environment_value(const std::vector<std::string>& env,
                                             const std::string& name) {
  for (const std::string& entry : env)
    if (entry.starts_with(name + "=")) return entry.substr(name.size() + 1);
  return std::nullopt;
}

std::string describe_end(const LaunchResult& launch, double timeout_seconds) {
  switch (launch.end) {
    case LaunchResult::End::kExited:
      return fmt::format("exit status {}", launch.exit_status);
    case LaunchResult::End::kSignaled:
      return fmt::format("killed by signal {} ({})", launch.signal, strsignal(launch.signal));
    case LaunchResult::End::kTimedOut:
      return fmt::format("timed out after {:g} s (process group killed)", timeout_seconds);
    case LaunchResult::End::kStopped:
      return "interrupted";
    case LaunchResult::End::kExecFailed:
      return "cannot execute: " + launch.error;
  }
  return "";
}

std::string shell_quote(const std::string& word) {
  if (!word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                              "0123456789@%+=:,./-_") == std::string::npos)
    return word;
  std::string quoted = "'";
  for (char c : word) {
    if (c == '\'')
      quoted.append("'\\''");
    else
      quoted.push_back(c);
  }
  quoted.push_back('\'');
  return quoted;
}

// Everything fixed for the whole sweep that each run needs.
struct SweepContext {
  explicit SweepContext(const RunOptions& run_options) : options(run_options) {}

  const RunOptions& options;
  std::string tool;
  std::string libomp;
  std::string scratch;  // the private temporary directory
  std::string shim;     // the GOMP shim directory; "" without GCC binaries
  std::vector<std::string> base_env;
  std::optional<std::string> bind;    // OMP_PROC_BIND as the application sees it
  std::optional<std::string> places;  // OMP_PLACES likewise
  std::string host;
  int hardware_threads = 0;
  double tsc_hz = 0;  // measured once here, handed to every run (0: no invariant TSC)
};

// Each distinct application of the plan (argv[0] may hold a placeholder): found, and checked for
// the GOMP ABI, before any run. Throws UsageError.
std::map<std::string, Executable> inspect_executables(const std::vector<PlannedRun>& runs,
                                                      const std::string& libomp) {
  std::map<std::string, Executable> executables;
  for (const PlannedRun& run : runs) {
    const std::string& name = run.command.front();
    if (executables.count(name) != 0) continue;
    Executable executable;
    executable.path = find_executable(name);
    if (const std::optional<ElfDynamicInfo> info = read_elf_dynamic_info(executable.path)) {
      executable.dynamic = info->has_interpreter;
      executable.gomp_abi = check_gomp_abi(name, *info, libomp);
    } else {
      executable.script = true;
    }
    executables[name] = executable;
  }
  return executables;
}

// A native run's `variant` (plan.h: kRunVariants) picks its runtime and knob; "" for a run with
// the tool.
RunSettings settings_for(const SweepContext& context, const Executable& executable, int threads,
                         const std::string& profile, bool native = false,
                         const std::string& variant = "libgomp") {
  RunSettings settings;
  settings.native = native;
  settings.threads = threads;
  settings.bind = context.options.bind;
  settings.places = context.options.places;
  settings.tool = context.tool;
  settings.profile = profile;
  const bool shimmed = executable.gomp_abi || executable.script;
  const RunVariant* knob = native ? find_variant(variant) : nullptr;
  settings.gomp_shim =
      shimmed && (!native || (knob != nullptr && knob->on_libomp)) ? context.shim : "";
  settings.libgomp_schedule = executable.gomp_abi;
  if (knob != nullptr && knob->environment[0] != '\0') settings.extra = {knob->environment};
  settings.tsc_hz = context.tsc_hz;
  settings.raw_locations = true;  // resolved here after the run (ProfileLocations)
  return settings;
}

// The OpenMP runtime the loader maps for each dynamically linked application, in the environment
// of its runs.
void find_runtime_libraries(const SweepContext& context,
                            std::map<std::string, Executable>& executables) {
  for (auto& [name, executable] : executables) {
    if (!executable.dynamic) continue;
    const RunSettings settings =
        settings_for(context, executable, 1, context.scratch + "/unused.json");
    std::string library =
        loaded_library(executable.path, run_environment(context.base_env, settings),
                       {"libomp.so.5", "libomp.so", "libiomp5.so", kLibgompSoname});
    if (executable.gomp_abi && fs::path(library).parent_path() == fs::path(context.shim))
      library = context.libomp;  // the shim's link: what is loaded is libomp itself
    executable.runtime_library = library;
    if (executable.gomp_abi) {
      const RunSettings native = settings_for(context, executable, 1, "", true);
      executable.native_library = loaded_library(
          executable.path, run_environment(context.base_env, native), {kLibgompSoname});
    }
  }
}

// Makes one run with every sensor and returns its record; `on_tick` gets the seconds elapsed
// about once a second. The record of a stopped run (launch.end == stopped) is not to be written.
RunRecord make_run(const SweepContext& context, const PlannedRun& run, const Executable& executable,
                   RaplMeter& rapl, ProfileLocations& locations,
                   const std::function<void(double)>& on_tick) {
  const std::string profile = context.scratch + "/" + run.id + ".profile.json";
  std::error_code ignored;
  fs::remove(profile, ignored);
  Launch launch;
  launch.executable = executable.path;
  launch.argv = run.command;
  launch.env = run_environment(context.base_env, settings_for(context, executable, run.threads,
                                                              profile, run.native, run.variant));
  launch.log_path = (fs::path(context.options.output_dir) / (run.id + ".log")).string();
  launch.timeout_seconds = context.options.timeout_seconds;

  RunRecord record;
  record.run = run;
  record.command_template = context.options.command;
  record.bind = context.bind;
  record.places = context.places;
  const bool on_libomp = !run.native || run.variant == "libomp";
  record.runtime_library = on_libomp ? executable.runtime_library : executable.native_library;
  record.gomp_abi = executable.gomp_abi && on_libomp;
  record.native = run.native;
  record.expected_exit = context.options.expect_exit;
  record.process_tree_shim = executable.script && !run.native;
  record.tool = context.tool;
  record.log = run.id + ".log";
  record.openmp_environment = openmp_variables(launch.env);
  record.host = context.host;
  record.hardware_threads = context.hardware_threads;
  record.started = utc_timestamp();

  const auto started = std::chrono::steady_clock::now();
  std::unique_ptr<PerfCounters> counters;
  LaunchHooks hooks;
  CpuShare share;
  hooks.attach = [&](pid_t pid) {
    counters = std::make_unique<PerfCounters>(pid, hardware_events());
    if (rapl.available()) rapl.start();
    share.start();
  };
  hooks.tick = [&] {
    if (rapl.available()) rapl.sample();
    on_tick(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  };
  hooks.should_stop = [] { return interrupted(); };
  record.launch = launch_and_wait(launch, hooks);
  if (record.launch.end == LaunchResult::End::kStopped) {
    fs::remove(launch.log_path, ignored);  // a partial log of a run that gets no run file
    fs::remove(profile, ignored);
    return record;
  }

  record.time_sharing =
      share.stop(run.threads, static_cast<double>(record.launch.wall_ns) * 1e-9,
                 static_cast<double>(record.launch.user_ns + record.launch.system_ns) * 1e-9,
                 record.launch.involuntary_switches);
  if (rapl.available()) {
    record.energy = rapl.stop();
    if (record.energy.joules.empty())
      record.energy_reason = fmt::format("{}", fmt::join(record.energy.skipped, "; "));
  } else {
    record.energy_reason = rapl.reason();
  }
  if (counters->available()) {
    const PerfCounters::Counts counts = counters->read();
    record.counters = counts.values;
    record.counters_scaled = counts.scaled;
  }
  // Also when the read itself failed.
  if (!counters->available()) record.counters_reason = counters->reason();
  if (run.native) {
    record.profile_error = "a native run: on the application's own runtime, without the tool";
    return record;
  }
  record.profile = read_profile(profile, record.launch, record.profile_error);
  fs::remove(profile, ignored);
  locations.resolve(record.profile);
  return record;
}

}  // namespace

std::string resume_command(const std::vector<std::string>& command_line) {
  std::string command;
  bool in_application = false;
  for (const std::string& arg : command_line) {
    if (!in_application && arg == "--force") continue;
    if (arg == "--") in_application = true;
    if (!command.empty()) command.push_back(' ');
    command.append(shell_quote(arg));
  }
  return command;
}

namespace {

void check_run_options(const RunOptions& options) {
  if (options.progress != "auto" && options.progress != "always" && options.progress != "never")
    throw UsageError("--progress '" + options.progress + "': expected auto, always or never");
  if (options.timeout_seconds < 0)
    throw UsageError(fmt::format("--timeout {:g}: must be 0 (none) or positive seconds",
                                 options.timeout_seconds));
}

// What every run shares, known before the first: tool, runtime, environment, clock, binding.
void fill_context(SweepContext& context, const std::string& libomp, int hardware_threads) {
  const RunOptions& options = context.options;
  context.tool = locate_tool(options.tool);
  context.libomp = libomp;
  context.base_env = current_environment();
  context.host = host_name();
  context.hardware_threads = hardware_threads;
  // Every run converts ticks with the same factor, and none spends ~2 ms calibrating it.
  if (const sync::ClockInfo& clock = sync::init_clock(); clock.source == sync::ClockSource::kTsc)
    context.tsc_hz = clock.ticks_per_second;
  context.bind =
      options.bind.empty() ? environment_value(context.base_env, "OMP_PROC_BIND") : options.bind;
  context.places =
      options.places.empty() ? environment_value(context.base_env, "OMP_PLACES") : options.places;
}

void create_output_directory(const std::string& directory) {
  std::error_code error;
  fs::create_directories(directory, error);
  if (error || !fs::is_directory(directory))
    throw UsageError(fmt::format("-o {}: cannot create the directory{}", directory,
                                 error ? ": " + error.message() : ""));
}

// Resume: the runs whose complete file is not there yet (all of them with --force).
std::vector<const PlannedRun*> pending_runs(const std::vector<PlannedRun>& runs,
                                            const SweepContext& context) {
  const RunOptions& options = context.options;
  std::vector<const PlannedRun*> pending;
  for (const PlannedRun& run : runs) {
    const std::string path = (fs::path(options.output_dir) / (run.id + ".json")).string();
    if (options.force || !run_file_complete(path, run, context.bind, context.places))
      pending.push_back(&run);
  }
  return pending;
}

// What the runs made now came to.
struct RunTally {
  int failed = 0;
  int failed_with_profile = 0;  // exited unexpectedly after the tool wrote its whole profile
  std::size_t done = 0;
  const PlannedRun* stopped_at = nullptr;  // the first run not made, after an interrupt
};

RunTally make_runs(const SweepContext& context, const std::vector<const PlannedRun*>& pending,
                   const std::map<std::string, Executable>& executables, std::size_t already,
                   int total) {
  const RunOptions& options = context.options;
  RaplMeter rapl(default_powercap_root());
  ProfileLocations locations;
  ProgressLine progress(
      options.progress == "always" || (options.progress == "auto" && isatty(STDERR_FILENO) != 0),
      total);
  RunTally tally;
  tally.done = already;
  for (const PlannedRun* run : pending) {
    if (interrupted()) {
      tally.stopped_at = run;
      break;
    }
    const int number = static_cast<int>(tally.done) + 1;
    const auto show = [&](double seconds) {
      progress.show(number, run->id, seconds, tally.failed);
    };
    show(0);
    const RunRecord record =
        make_run(context, *run, executables.at(run->command.front()), rapl, locations, show);
    if (record.launch.end == LaunchResult::End::kStopped) {
      tally.stopped_at = run;
      break;
    }
    write_output((fs::path(options.output_dir) / (run->id + ".json")).string(),
                 run_file_json(record).dump(2) + "\n");
    ++tally.done;
    if (!run_succeeded(record.launch, options.expect_exit)) {
      ++tally.failed;
      if (!record.profile.is_null()) ++tally.failed_with_profile;
      progress.clear();
      std::fprintf(stderr, "ompscan: %s failed: %s (output in %s/%s)\n", run->id.c_str(),
                   describe_end(record.launch, options.timeout_seconds).c_str(),
                   options.output_dir.c_str(), record.log.c_str());
    }
  }
  progress.clear();
  return tally;
}

// The sweep's last lines on stderr and its exit status.
int report_end(const RunOptions& options, const RunTally& tally, std::size_t runs, std::size_t made,
               std::size_t already) {
  if (tally.stopped_at != nullptr) {
    std::fprintf(stderr,
                 "ompscan: interrupted at %s; %zu of %zu runs are in %s. Resume with:\n  %s\n",
                 tally.stopped_at->id.c_str(), tally.done, runs, options.output_dir.c_str(),
                 resume_command(options.command_line).c_str());
    return 130;
  }
  std::fprintf(stderr, "ompscan: %zu run%s in %s", runs, runs == 1 ? "" : "s",
               options.output_dir.c_str());
  if (already > 0) std::fprintf(stderr, " (%zu made now)", made);
  if (tally.failed > 0) std::fprintf(stderr, ", %d failed", tally.failed);
  std::fprintf(stderr, "\n");
  const int with_profile = tally.failed_with_profile;
  if (with_profile > 0) {
    std::fprintf(stderr,
                 "ompscan: %d failed run%s left a complete profile: the report analyses %s and "
                 "lists %s exit status (--expect-exit N names the status of a successful run)\n",
                 with_profile, with_profile == 1 ? "" : "s", with_profile == 1 ? "it" : "them",
                 with_profile == 1 ? "its" : "their");
  }
  // Nothing to report when every run made now failed without a profile: the caller must know.
  if (made > 0 && tally.failed == static_cast<int>(made) && with_profile == 0) {
    std::fprintf(stderr, "ompscan: every run failed; see the logs in %s\n",
                 options.output_dir.c_str());
    return 1;
  }
  return 0;
}

// The runtime's costs on this machine (machine_probe.h), at the sweep's largest thread count, on
// libomp and, for GCC builds, on their own libgomp: notes on stderr for any it could not measure.
void probe_machine(const SweepContext& context,
                   const std::map<std::string, Executable>& executables,
                   const std::vector<PlannedRun>& runs) {
  ProbeRequest request;
  request.probe = locate_probe();
  request.directory = context.options.output_dir;
  request.force = context.options.force;
  request.repetitions = std::max(3, context.options.reps);
  for (const PlannedRun& run : runs) request.threads = std::max(request.threads, run.threads);
  if (request.probe.empty()) {
    std::fprintf(stderr,
                 "ompscan: note: no ompscan-probe next to ompscan: the report assumes "
                 "the runtime's costs on this machine\n");
    return;
  }
  RunSettings settings;
  settings.threads = request.threads;
  settings.bind = context.options.bind;
  settings.places = context.options.places;
  settings.native = true;  // no tool
  const std::vector<std::string> native = run_environment(context.base_env, settings);
  // The probe is built for libgomp: libomp through a shim of its own.
  const std::string shim = context.scratch + "/probe-gomp";
  make_gomp_shim(shim, context.libomp);
  std::vector<std::string> on_libomp = native;
  std::erase_if(on_libomp, [](const std::string& e) { return e.starts_with("LD_LIBRARY_PATH="); });
  on_libomp.push_back(library_path_with(shim));
  request.runtimes.push_back({"libomp", context.libomp, on_libomp});
  const bool gcc_build = std::any_of(executables.begin(), executables.end(),
                                     [](const auto& e) { return e.second.gomp_abi; });
  if (gcc_build) {
    std::string library;
    for (const auto& [name, e] : executables) {
      if (e.gomp_abi && !e.native_library.empty()) library = e.native_library;
    }
    request.runtimes.push_back({"libgomp", library, native});
  }
  for (const std::string& note : measure_machine_costs(request)) {
    std::fprintf(stderr, "ompscan: note: %s\n", note.c_str());
  }
}

}  // namespace

int run_sweep(const RunOptions& options) {
  check_run_options(options);
  const int hardware_threads = platforms::detect_platform().hardware_threads();
  std::vector<PlannedRun> runs = plan_runs(options, hardware_threads);
  const std::string libomp = options.libomp.empty() ? default_libomp() : options.libomp;
  std::map<std::string, Executable> executables = inspect_executables(runs, libomp);
  if (options.native_runs) {
    runs = with_native_runs(runs);
    std::erase_if(runs, [&](const PlannedRun& run) {
      return run.native && !executables.at(run.command.front()).gomp_abi;
    });
  }

  SweepContext context(options);
  fill_context(context, libomp, hardware_threads);
  create_output_directory(options.output_dir);
  const std::vector<const PlannedRun*> pending = pending_runs(runs, context);
  const std::size_t already = runs.size() - pending.size();
  if (pending.empty()) {
    std::fprintf(stderr, "ompscan: all %zu runs are already in %s (--force makes them again)\n",
                 runs.size(), options.output_dir.c_str());
    return 0;
  }
  if (already > 0)
    std::fprintf(stderr, "ompscan: resuming in %s: %zu of %zu runs already there\n",
                 options.output_dir.c_str(), already, runs.size());
  if (std::any_of(runs.begin(), runs.end(), [](const PlannedRun& r) { return r.oversubscribed; }))
    std::fprintf(stderr,
                 "ompscan: note: thread counts above the %d hardware threads are oversubscribed; "
                 "their runs are marked oversubscribed\n",
                 hardware_threads);

  // From here on an interrupt is ours to handle: the scratch directory is removed and the
  // resume command printed.
  const InterruptGuard interrupt_guard;
  const TemporaryDirectory scratch("ompscan");  // profiles, the GOMP shim
  context.scratch = scratch.path();
  if (std::any_of(executables.begin(), executables.end(),
                  [](const auto& e) { return e.second.gomp_abi || e.second.script; })) {
    context.shim = scratch.path() + "/gomp";
    make_gomp_shim(context.shim, libomp);
  }
  find_runtime_libraries(context, executables);
  if (options.probe) probe_machine(context, executables, runs);
  const RunTally tally =
      make_runs(context, pending, executables, already, static_cast<int>(runs.size()));
  return report_end(options, tally, runs.size(), pending.size(), already);
}

}  // namespace ompscale::regions

#include "microbench/driver/sweep.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <random>
#include <thread>

#include "common/error.h"
#include "common/executable_path.h"
#include "common/host_name.h"
#include "common/interrupt.h"
#include "common/terminal.h"
#include "common/text.h"
#include "common/utc_time.h"
#include "microbench/driver/canary_store.h"
#include "microbench/driver/machine_lock.h"
#include "microbench/driver/plan.h"
#include "microbench/driver/progress.h"
#include "microbench/driver/results_file.h"
#include "microbench/driver/runtime_library.h"
#include "microbench/driver/sidecar.h"
#include "microbench/driver/worker_groups.h"
#include "microbench/driver/worker_process.h"
#include "microbench/protocol.h"
#include "microbench/result_row.h"
#include "platforms/platform.h"
#include "platforms/thread_class.h"
#include "sync/canary.h"
#include "sync/clock.h"

namespace ompscale::microbench {

const char* primary_metric(Method method) {
  return method == Method::direct ? "avg_cost" : "overhead";
}

namespace {

const char* runtime_column(const std::string& runtime) {
  return runtime == "llvm" ? "libomp" : "libgomp";
}

std::string thread_class_of(int threads, const platforms::Platform& platform) {
  const auto name = platforms::classify(threads, platform.classes);
  if (!name) return "other";
  std::string upper = *name;
  for (const platforms::ThreadClass& c : platform.classes)
    if (c.name() == *name && c.kind() != platforms::ThreadClass::Kind::kList &&
        c.kind() != platforms::ThreadClass::Kind::kArithmetic)
      std::transform(upper.begin(), upper.end(), upper.begin(),
                     [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
  return upper;
}

std::string worker_directory(const RunOptions& options) {
  if (!options.worker_dir.empty()) return options.worker_dir;
  if (const char* env = std::getenv("OMPBENCH_WORKER_DIR")) return env;
  const std::filesystem::path directory = executable_directory();
  return directory.empty() ? "." : directory.string();
}

// Round-trip canaries the driver measures itself, with two threads pinned to CPUs 0 and 1 (as a
// bound team would be): before the first batch, so the reference does not depend on which
// configuration happens to come first, and while it waits for a fast phase.
std::vector<double> driver_canaries(int exchanges, int probes) {
  std::vector<double> values;
  if (exchanges <= 0 || std::thread::hardware_concurrency() < 2) return values;
  const auto pin = [](int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  };
  for (int p = 0; p < probes; ++p) {
    sync::RoundTripCanary canary;
    double value = 0;
    std::thread first([&] {
      pin(0);
      value = canary.measure(0, exchanges);
    });
    std::thread second([&] {
      pin(1);
      canary.measure(1, exchanges);
    });
    first.join();
    second.join();
    if (value > 0) values.push_back(value);
  }
  return values;
}

// The reference a batch's canary is judged against: the median of every canary of the run so far.
// Not the minimum: a quiet machine's canaries spread by about 1.6x (minimum to maximum), and the
// minimum would call a third of them slow. A slow phase moves the round trip by up to 5x.
class CanaryReference {
 public:
  void add(double canary) {
    values_.insert(std::upper_bound(values_.begin(), values_.end(), canary), canary);
  }
  double value() const { return values_.empty() ? 0 : values_[values_.size() / 2]; }

 private:
  std::vector<double> values_;  // sorted
};

// Per-configuration progress of the sweep.
struct ConfigState {
  std::string key;
  int valid = 0;     // valid values of the primary metric
  int next_rep = 0;  // repetition number of the next value
  int batches = 0;   // batches run in this sweep
  int max_batches = 0;
  bool unavailable = false;
  bool complete(int reps) const { return unavailable || valid >= reps; }
  bool exhausted() const { return batches >= max_batches; }
};

// Collects one batch's records until its `end` arrives.
struct PendingBatch {
  std::vector<std::vector<std::string>> samples;  // fields of the "sample" records
  std::string unavailable;
};

std::string quote_argument(const std::string& arg) {
  if (!arg.empty() && arg.find_first_of(" \t\n'\"\\$`*?[]{}()<>|&;#~") == std::string::npos)
    return arg;
  std::string quoted = "'";
  for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string method_options(const RunOptions& options) {
  return fmt::format("option epcc.delay_us {}\noption epcc.test_time_us {}\n",
                     options.epcc_delay_us, options.epcc_test_time_us);
}

// Configurations left short of --reps valid values: a handful are listed, many are counted and
// summarised (hundreds of lines would hide everything else); the sidecar lists them all.
void print_incomplete(const std::vector<std::string>& incomplete, std::size_t configs,
                      const RunOptions& options, const std::string& meta) {
  if (incomplete.empty()) return;
  const std::size_t width = output_width(STDERR_FILENO);
  constexpr std::size_t kListed = 3;
  std::string text = fmt::format(
      "ompbench: {} of {} configuration{} incomplete: the re-measurement budget "
      "(--max-remeasure {}) was spent before {} valid values (--reps)",
      incomplete.size(), configs, configs == 1 ? " is" : "s are", options.max_remeasure,
      options.reps);
  if (incomplete.size() <= kListed) {
    std::fputs(wrap(text + ":", width, "", "  ").c_str(), stderr);
    for (const std::string& i : incomplete)
      std::fputs(wrap(i, width, "  ", "    ").c_str(), stderr);
    return;
  }
  text += fmt::format("; for example {}",
                      fmt::join(incomplete.begin(), incomplete.begin() + kListed, "; "));
  text += meta.empty() ? fmt::format(" and {} more", incomplete.size() - kListed)
                       : fmt::format(" and {} more (all in {})", incomplete.size() - kListed, meta);
  std::fputs(wrap(text, width, "", "  ").c_str(), stderr);
}

}  // namespace

int run_sweep(const RunOptions& options) {
  if (options.reps < 1) throw UsageError("--reps must be at least 1");
  if (options.batch < 1) throw UsageError("--batch must be at least 1");
  if (options.slow_factor <= 1 || options.compute_slow_factor <= 1)
    throw UsageError("--slow-factor and --compute-slow-factor must be greater than 1");
  if (options.max_remeasure < 0) throw UsageError("--max-remeasure must be >= 0");

  const platforms::Platform detected = platforms::detect_platform();
  const platforms::Platform platform =
      options.platform.empty() ? detected : platforms::find_platform(options.platform);
  const int hardware_threads = detected.hardware_threads();
  const std::string workers = worker_directory(options);
  const std::string gnu_worker = workers + "/ompbench-worker-gnu";
  const std::string llvm_worker = workers + "/ompbench-worker-llvm";
  if (access(gnu_worker.c_str(), X_OK) != 0)
    throw UsageError("cannot find the measurement worker " + gnu_worker +
                     "; build ompbench completely (ninja) or set OMPBENCH_WORKER_DIR");
  const bool llvm_available = access(llvm_worker.c_str(), X_OK) == 0;
  const RuntimeShims shims(parse_runtime_libraries(options.runtime_libs));
  RunOptions effective = options;
  if (effective.max_threads == 0 && !options.platform.empty())
    effective.max_threads = std::min(platform.hardware_threads(), hardware_threads);
  const Plan plan = make_plan(effective, llvm_available, hardware_threads);

  const bool to_stdout = options.output.empty() || options.output == "-";
  const std::string meta = !options.meta.empty() ? options.meta
                           : to_stdout           ? ""
                                                 : options.output + ".meta.json";
  if (!meta.empty()) check_sidecar(meta);

  RunRecord record;
  record.run_id = options.run_id;
  if (record.run_id.empty()) {
    record.run_id = utc_timestamp();
    record.run_id.erase(std::remove_if(record.run_id.begin(), record.run_id.end(),
                                       [](char c) { return c == '-' || c == ':'; }),
                        record.run_id.end());
    record.run_id = "r" + record.run_id;
  }
  record.started = utc_timestamp();
  record.command = options.command_line;
  record.platform_json = platforms::to_json(platform);
  record.detected_json = platforms::to_json(detected);
  record.slow_factor = options.slow_factor;
  record.compute_slow_factor = options.compute_slow_factor;
  const std::string platform_name = options.platform.empty() ? host_name() : platform.name;

  std::vector<std::string> warnings;
  ResultsFile results = ResultsFile::open(options.output, warnings);
  for (const std::string& w : warnings) std::fprintf(stderr, "ompbench: warning: %s\n", w.c_str());
  record.warnings = warnings;

  // Resume: what the file already holds.
  const int planned_batches = (options.reps + options.batch - 1) / options.batch;
  std::vector<ConfigState> states(plan.configs.size());
  long already = 0;
  for (std::size_t i = 0; i < plan.configs.size(); ++i) {
    const Config& c = plan.configs[i];
    const Setting& s = plan.settings[static_cast<std::size_t>(c.setting)];
    ConfigState& state = states[i];
    state.key =
        config_key(std::string(c.construct->name), to_string(c.method), std::to_string(c.threads),
                   s.bind, s.places, runtime_column(s.runtime), c.param_value);
    state.valid = results.valid_values(state.key, primary_metric(c.method));
    state.next_rep = results.next_rep(state.key);
    state.max_batches = planned_batches + options.max_remeasure;
    already += std::min(state.valid, options.reps);
  }
  if (already > 0)
    std::fprintf(stderr, "ompbench: resuming %s: %ld of %ld values already measured\n",
                 results.path().c_str(), already,
                 static_cast<long>(plan.configs.size()) * options.reps);
  const bool oversubscribed = std::any_of(plan.configs.begin(), plan.configs.end(),
                                          [](const Config& c) { return c.oversubscribed; });
  record.oversubscribed = oversubscribed;
  if (oversubscribed)
    std::fprintf(
        stderr,
        "ompbench: note: thread counts above the %d hardware threads are oversubscribed; "
        "their rows are marked oversubscribed=1 and measure time slicing, not the runtime\n",
        hardware_threads);

  const sync::ClockInfo& clock = sync::init_clock();
  InterruptGuard interrupt_guard;
  ProgressBar progress(
      options.progress == "always" || (options.progress == "auto" && isatty(2) != 0),
      static_cast<long>(plan.configs.size()) * options.reps);
  CanaryReference reference;          // cross-core round trip
  CanaryReference compute_reference;  // compute speed
  // The machine's typical state from earlier runs (canary_store.h): batches are judged against it
  // while the sweep can wait for it; after --max-wait in another state, against this run's own
  // canaries.
  const CanaryStore store(options.canary_store);
  // Every measurement (the driver's probes, a worker's round) holds the machine lock.
  MachineLock machine_lock(store.enabled() ? fmt::format("{}.{}.lock", store.path(), host_name())
                                           : "");
  {
    const MachineLock::Held held = machine_lock.acquire();
    for (double probe : driver_canaries(options.canary_exchanges, 10)) reference.add(probe);
  }
  const std::string machine = CanaryStore::machine_key(hardware_threads);
  const double typical_round_trip =
      options.canary_exchanges > 0 ? store.typical_round_trip_ns(machine) : 0;
  bool use_typical = typical_round_trip > 0;
  double waited_seconds = 0;
  record.canary_typical_ns = typical_round_trip;
  // Another state than the typical one, in either direction: both change what a construct costs.
  const auto off_state = [&](double round_trip) {
    return round_trip > options.slow_factor * typical_round_trip ||
           round_trip * options.slow_factor < typical_round_trip;
  };
  const auto round_trip_reference = [&] {
    return use_typical ? typical_round_trip : reference.value();
  };
  // Waits (bounded, interruptible) until the round trip is back in the machine's typical state.
  const auto wait_for_typical_state = [&] {
    if (!use_typical) return;
    const auto median_probe = [&] {
      const MachineLock::Held held = machine_lock.acquire();
      std::vector<double> probes = driver_canaries(options.canary_exchanges, 3);
      std::sort(probes.begin(), probes.end());
      return probes.empty() ? 0.0 : probes[probes.size() / 2];
    };
    double now = median_probe();
    while (off_state(now) && waited_seconds < options.max_wait && !interrupted()) {
      if (waited_seconds == 0) {
        progress.clear();
        std::fprintf(stderr,
                     "ompbench: the machine is in an unusual phase (round trip %.0f ns, typically "
                     "%.0f ns); waiting up to %.0f s for its typical state\n",
                     now, typical_round_trip, options.max_wait);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      waited_seconds += 0.5;
      now = median_probe();
    }
    if (off_state(now) && !interrupted()) {
      use_typical = false;
      const std::string note = fmt::format(
          "measured in an unusual phase: round trip {:.0f} ns against this machine's typical "
          "{:.0f} ns after waiting {:.1f} s; values are judged against this run's own canaries",
          now, typical_round_trip, waited_seconds);
      record.warnings.push_back(note);
      progress.clear();
      std::fprintf(stderr, "ompbench: warning: %s\n", note.c_str());
    }
  };
  long done_values = already;
  std::mt19937 rng(options.seed);
  std::map<std::string, std::string> runtime_version, compiler;  // by setting runtime
  int round = 0;
  int phase_stops = 0;
  constexpr int kMaxPhaseStops = 20;
  bool failed = false;

  while (!interrupted()) {
    wait_for_typical_state();
    std::vector<std::size_t> unfinished;
    for (std::size_t i = 0; i < plan.configs.size(); ++i)
      if (!states[i].complete(options.reps) && !states[i].exhausted()) unfinished.push_back(i);
    if (unfinished.empty()) break;
    // One worker process per setting and team size (worker_groups.h), in a fresh order each round.
    std::vector<WorkerGroup> groups = group_by_worker(plan, unfinished);
    std::shuffle(groups.begin(), groups.end(), rng);

    for (std::size_t k = 0; k < groups.size() && !interrupted(); ++k) {
      std::vector<std::size_t>& members = groups[k].members;
      std::shuffle(members.begin(), members.end(), rng);
      const Setting& setting = plan.settings[static_cast<std::size_t>(groups[k].setting)];

      Job job;
      job.ticks_per_second = clock.source == sync::ClockSource::tsc ? clock.ticks_per_second : 0;
      job.allow_tsc = clock.source == sync::ClockSource::tsc;
      job.canary_exchanges = options.canary_exchanges;
      for (std::size_t j = 0; j < members.size(); ++j) {
        const Config& c = plan.configs[members[j]];
        const ConfigState& state = states[members[j]];
        const int count = std::min(options.batch, options.reps - state.valid);
        job.batches.push_back({static_cast<int>(j), std::string(c.construct->name), c.method,
                               c.threads, c.param_value, std::max(1, count), state.next_rep});
      }
      WorkerLaunch launch;
      launch.executable = setting.runtime == "llvm" ? llvm_worker : gnu_worker;
      launch.unset_env = {"OMP_NUM_THREADS", "OMP_PROC_BIND", "OMP_PLACES", "OMP_DYNAMIC"};
      launch.set_env = {"OMP_PROC_BIND=" + setting.bind, "OMP_DYNAMIC=false"};
      if (!setting.places.empty()) launch.set_env.push_back("OMP_PLACES=" + setting.places);
      if (const std::string shim = shims.environment(setting.runtime); !shim.empty()) {
        launch.set_env.push_back(shim);
      }
      launch.job = format_job(job, method_options(options));

      std::map<int, PendingBatch> pending;
      bool phase_changed = false;
      WorkerFacts& facts = record.workers[setting.runtime];
      const auto on_line = [&](const std::string& line) {
        const std::vector<std::string> f = split(line, '\t');
        const std::string& kind = f[0];
        if (kind == "sample" && f.size() == 6) {
          pending[record_int(f, 1)].samples.push_back(f);
        } else if (kind == "unavailable" && f.size() >= 3) {
          pending[record_int(f, 1)].unavailable = f[2];
        } else if (kind == "end" && f.size() == 7) {
          const int id = record_int(f, 1);
          const std::size_t index = members.at(static_cast<std::size_t>(id));
          const Config& c = plan.configs[index];
          ConfigState& state = states[index];
          PendingBatch batch = std::move(pending[id]);
          pending.erase(id);
          ++record.batches;
          if (!batch.unavailable.empty()) {
            state.unavailable = true;
            std::string reason =
                fmt::format("{} ({} method) on {}: {}", c.construct->name, to_string(c.method),
                            runtime_column(setting.runtime), batch.unavailable);
            // One line per construct, method and runtime, not per thread count.
            if (std::find(record.unavailable.begin(), record.unavailable.end(), reason) ==
                record.unavailable.end())
              record.unavailable.push_back(std::move(reason));
            return;
          }
          const double canary = std::max(record_double(f, 2), record_double(f, 3));
          const double compute = std::max(record_double(f, 4), record_double(f, 5));
          if (canary > 0) reference.add(canary);
          if (compute > 0) compute_reference.add(compute);
          // A round trip outside the machine's typical state is a phase change: the batch is kept
          // (valid=0), the worker stopped, and the next round waits for the typical state; this
          // costs no re-measurement budget (waiting is bounded by --max-wait instead).
          const bool phase = use_typical && canary > 0 && off_state(canary);
          if (phase) phase_changed = true;
          const bool slow =
              phase || (canary > 0 && canary > options.slow_factor * round_trip_reference()) ||
              (compute > 0 && compute > options.compute_slow_factor * compute_reference.value());
          if (!phase) ++state.batches;
          const bool remeasure = slow && (phase || !state.exhausted());
          if (slow && remeasure) ++record.slow_batches;
          if (slow && !remeasure) ++record.accepted_slow;
          record.canary_ns.push_back(canary);
          record.compute_canary_ns.push_back(compute);

          std::string rows;
          ResultRow row;
          row.construct = std::string(c.construct->name);
          row.method = to_string(c.method);
          row.threads = c.threads;
          row.thread_class = thread_class_of(c.threads, platform);
          row.bind = setting.bind;
          row.places = setting.places;
          row.runtime = runtime_column(setting.runtime);
          row.runtime_version = facts.runtime_version;
          row.compiler = facts.compiler;
          row.platform = platform_name;
          row.param = std::string(c.construct->param);
          row.param_value = c.param_value;
          row.canary_ns = canary;
          row.run_id = record.run_id;
          row.timestamp = utc_timestamp();
          row.oversubscribed = c.oversubscribed;
          int max_rep = state.next_rep - 1;
          int valid_primary = 0;
          for (const std::vector<std::string>& sample : batch.samples) {
            row.metric = sample[2];
            row.rep = record_int(sample, 3);
            row.value = record_double(sample, 4) / 1000.0;  // ns -> us
            row.valid = sample[5] == "1" && !remeasure;
            if (!row.valid) ++record.invalid_values;
            if (row.valid && row.metric == primary_metric(c.method)) ++valid_primary;
            max_rep = std::max(max_rep, row.rep);
            rows += format_row(row);
          }
          results.append(rows);
          state.next_rep = max_rep + 1;
          const int before = std::min(state.valid, options.reps);
          state.valid += valid_primary;
          done_values += std::min(state.valid, options.reps) - before;
          progress.update(done_values, fmt::format("{} {} {} t={}", runtime_column(setting.runtime),
                                                   setting.bind, c.construct->name, c.threads));
        } else if (kind == "runtime" && f.size() == 6) {
          facts.runtime = f[1];
          facts.runtime_version = f[2];
          facts.compiler = f[3];
          facts.library_path = shims.library(setting.runtime, f[4]);
          facts.hardware_threads = record_int(f, 5);
        } else if (kind == "build" && f.size() == 2) {
          facts.flags = f[1];
        } else if (kind == "clock" && f.size() == 6) {
          facts.clock_source = f[1];
          facts.tsc_invariant = f[2] == "1";
          facts.ticks_per_second = record_double(f, 3);
          facts.step_ns = record_double(f, 4);
          facts.read_cost_ns = record_double(f, 5);
        } else if (kind == "calibration" || kind == "causality" || kind == "window") {
          record.calibrations.push_back({setting.runtime, setting.bind, setting.places, round,
                                         std::vector<std::string>(f.begin() + 1, f.end()), kind});
        }
      };
      const WorkerExit exit = [&] {
        const MachineLock::Held held = machine_lock.acquire();
        if (interrupted()) return WorkerExit{true, 0, "interrupted"};
        return run_worker(
            launch, [&] { return interrupted() || phase_changed; }, on_line);
      }();
      if (exit.stopped && phase_changed && ++phase_stops >= kMaxPhaseStops) {
        // A machine that flaps between states faster than a round: stop waiting for it.
        use_typical = false;
        record.warnings.push_back(fmt::format(
            "the round trip left this machine's typical state {} times during the sweep; later "
            "batches are judged against this run's own canaries",
            phase_stops));
      }
      if (exit.stopped) break;  // interrupted, or the phase changed: the next round waits
      if (exit.status != 0) {
        const std::string message =
            fmt::format("worker {} (bind={}, places={}) failed with {} in round {}",
                        launch.executable, setting.bind, setting.places, exit.describe, round);
        progress.clear();
        std::fprintf(stderr, "ompbench: error: %s\n", message.c_str());
        record.errors.push_back(message);
        failed = true;
        // A crashing setting would crash again: its unfinished configurations end here.
        for (std::size_t index : members) states[index].batches = states[index].max_batches;
      }
    }
    ++round;
  }
  progress.clear();
  record.canary_reference_ns = round_trip_reference();
  record.waited_seconds = waited_seconds;
  record.machine_lock_waited_seconds = machine_lock.waited_seconds();
  if (!machine_lock.warning().empty()) record.warnings.push_back(machine_lock.warning());
  record.compute_reference_ns = compute_reference.value();
  const bool was_interrupted = interrupted();
  record.finished = utc_timestamp();

  for (std::size_t i = 0; i < plan.configs.size(); ++i)
    if (!states[i].complete(options.reps)) {
      const Config& c = plan.configs[i];
      const Setting& s = plan.settings[static_cast<std::size_t>(c.setting)];
      record.incomplete.push_back(fmt::format(
          "{} {} t={} {} bind={}{}: {} of {} valid values", c.construct->name, to_string(c.method),
          c.threads, runtime_column(s.runtime), s.bind,
          c.param_value.empty() ? "" : " " + c.param_value, states[i].valid, options.reps));
    }
  record.status = was_interrupted             ? "interrupted"
                  : failed                    ? "failed"
                  : record.incomplete.empty() ? "complete"
                                              : "incomplete";
  if (!meta.empty()) append_run(meta, record);
  if (record.status == "complete" && !record.canary_ns.empty()) {
    std::vector<double> canaries = record.canary_ns;
    std::sort(canaries.begin(), canaries.end());
    // Under the lock: concurrent runs would otherwise overwrite each other's entries.
    const MachineLock::Held held = machine_lock.acquire();
    const std::string problem = store.record(machine, canaries[canaries.size() / 2]);
    if (!problem.empty()) std::fprintf(stderr, "ompbench: warning: %s\n", problem.c_str());
  }

  for (const std::string& u : record.unavailable)
    std::fputs(wrap("ompbench: skipped " + u, output_width(STDERR_FILENO), "", "  ").c_str(),
               stderr);
  if (!was_interrupted) print_incomplete(record.incomplete, plan.configs.size(), options, meta);
  if (record.slow_batches + record.accepted_slow > 0) {
    const std::string noise = fmt::format(
        "ompbench: noise: {} of {} batches ran in a slow phase (round trip > {:.2f}x {:.0f} ns "
        "or compute > {:.2f}x {:.0f} ns); {} measured again, {} kept",
        record.slow_batches + record.accepted_slow, record.batches, options.slow_factor,
        reference.value(), options.compute_slow_factor, compute_reference.value(),
        record.slow_batches, record.accepted_slow);
    std::fputs(wrap(noise, output_width(STDERR_FILENO), "", "  ").c_str(), stderr);
  }
  if (was_interrupted) {
    std::string resume;
    for (const std::string& arg : options.command_line) {
      if (!resume.empty()) resume += ' ';
      resume += quote_argument(arg);
    }
    std::fprintf(stderr, "ompbench: interrupted; %s holds every completed batch.\n",
                 to_stdout ? "stdout" : results.path().c_str());
    if (!to_stdout) std::fprintf(stderr, "ompbench: resume with: %s\n", resume.c_str());
    return 130;
  }
  return failed ? 1 : 0;
}

}  // namespace ompscale::microbench

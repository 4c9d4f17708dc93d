#include "microbench/driver/sweep.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <map>
#include <random>
#include <variant>

#include "common/error.h"
#include "common/executable_path.h"
#include "common/host_name.h"
#include "common/interrupt.h"
#include "common/terminal.h"
#include "common/text.h"
#include "common/utc_time.h"
#include "microbench/driver/canary_policy.h"
#include "microbench/driver/canary_store.h"
#include "microbench/driver/machine_lock.h"
#include "microbench/driver/plan.h"
#include "microbench/driver/progress.h"
#include "microbench/driver/results_file.h"
#include "microbench/driver/run_id.h"
#include "microbench/driver/runtime_library.h"
#include "microbench/driver/sidecar.h"
#include "microbench/driver/worker_groups.h"
#include "microbench/driver/worker_process.h"
#include "microbench/protocol.h"
#include "microbench/result_row.h"
#include "platforms/platform.h"
#include "platforms/thread_class.h"
#include "sync/clock.h"

namespace ompscale::microbench {

const char* primary_metric(Method method) {
  return method == Method::kDirect ? "avg_cost" : "overhead";
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
  std::vector<SampleRecord> samples;
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

// What a user can do about incomplete configurations: resume, allow more re-measurements, or use
// what is there.
std::string incomplete_advice(const RunOptions& options) {
  const std::string more =
      fmt::format("a larger --max-remeasure (now {}) lets slow phases cost more batches",
                  options.max_remeasure);
  if (options.output.empty() || options.output == "-") {
    return fmt::format(
        "To complete them, measure with -o FILE, which the same command resumes; {}. Or use "
        "the values as they are: none is dropped, and the modeler fits the valid ones.",
        more);
  }
  return fmt::format(
      "To complete them, run the same command again: it measures only what is missing; {}. Or "
      "use the values as they are: none is dropped, and the modeler fits the valid ones.",
      more);
}

// Configurations left short of --reps valid values: a handful are listed, many are counted and
// summarised (hundreds of lines would hide everything else); the sidecar lists them all. Then
// what to do about them.
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
    std::fputs(wrap(incomplete_advice(options), width, "  ", "  ").c_str(), stderr);
    return;
  }
  text += fmt::format("; for example {}",
                      fmt::join(incomplete.begin(), incomplete.begin() + kListed, "; "));
  text += meta.empty() ? fmt::format(" and {} more", incomplete.size() - kListed)
                       : fmt::format(" and {} more (all in {})", incomplete.size() - kListed, meta);
  std::fputs(wrap(text + ". " + incomplete_advice(options), width, "", "  ").c_str(), stderr);
}

void check_options(const RunOptions& options) {
  if (options.reps < 1) throw UsageError("--reps must be at least 1");
  if (options.batch < 1) throw UsageError("--batch must be at least 1");
  if (options.slow_factor <= 1 || options.compute_slow_factor <= 1)
    throw UsageError("--slow-factor and --compute-slow-factor must be greater than 1");
  if (options.max_remeasure < 0) throw UsageError("--max-remeasure must be >= 0");
}

// The measurement workers: the gcc + libgomp one must exist, the clang + libomp one may.
struct WorkerPaths {
  std::string gnu, llvm;
  bool llvm_available = false;
};

WorkerPaths find_workers(const RunOptions& options) {
  const std::string workers = worker_directory(options);
  WorkerPaths paths{workers + "/ompbench-worker-gnu", workers + "/ompbench-worker-llvm"};
  if (access(paths.gnu.c_str(), X_OK) != 0)
    throw UsageError("cannot find the measurement worker " + paths.gnu +
                     "; build ompbench completely (ninja) or set OMPBENCH_WORKER_DIR");
  paths.llvm_available = access(paths.llvm.c_str(), X_OK) == 0;
  return paths;
}

// The run record's facts known before the first round.
RunRecord start_record(const RunOptions& options, const platforms::Platform& platform,
                       const platforms::Platform& detected) {
  RunRecord record;
  record.started = utc_timestamp();
  record.run_id = options.run_id.empty() ? new_run_id(record.started) : options.run_id;
  record.command = options.command_line;
  record.platform_json = platforms::to_json(platform);
  record.detected_json = platforms::to_json(detected);
  record.slow_factor = options.slow_factor;
  record.compute_slow_factor = options.compute_slow_factor;
  return record;
}

// Resume: every configuration's state from what the results file already holds; returns the
// values already measured.
long resume_states(const Plan& plan, const RunOptions& options, const ResultsFile& results,
                   std::vector<ConfigState>& states) {
  const int planned_batches = (options.reps + options.batch - 1) / options.batch;
  states.assign(plan.configs.size(), ConfigState{});
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
  return already;
}

// What the rows of one batch share: everything but metric, repetition, value and validity.
ResultRow row_template(const Config& c, const Setting& setting, const WorkerFacts& facts,
                       const platforms::Platform& platform, const std::string& platform_name,
                       const std::string& run_id, double canary) {
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
  row.run_id = run_id;
  row.timestamp = utc_timestamp();
  row.oversubscribed = c.oversubscribed;
  return row;
}

// One batch's rows (the row builder): CSV text, and what they add to the configuration's state.
struct BatchRows {
  std::string text;
  int max_rep = 0;
  int valid_primary = 0;  // valid values of the primary metric
  int invalid = 0;
};

BatchRows build_rows(ResultRow row, const std::vector<SampleRecord>& samples, bool remeasure,
                     std::string_view primary, int max_rep) {
  BatchRows out;
  out.max_rep = max_rep;
  for (const SampleRecord& sample : samples) {
    row.metric = sample.metric;
    row.rep = sample.rep;
    row.value = sample.value_ns / 1000.0;  // ns -> us
    row.valid = sample.valid && !remeasure;
    if (!row.valid) ++out.invalid;
    if (row.valid && row.metric == primary) ++out.valid_primary;
    out.max_rep = std::max(out.max_rep, row.rep);
    out.text += format_row(row);
  }
  return out;
}

void store_worker_facts(WorkerFacts& facts, const WorkerRecord& record, const Setting& setting,
                        const RuntimeShims& shims) {
  if (const auto* r = std::get_if<RuntimeRecord>(&record)) {
    facts.runtime = r->runtime;
    facts.runtime_version = r->version;
    facts.compiler = r->compiler;
    facts.library_path = shims.library(setting.runtime, r->library_path);
    facts.hardware_threads = r->hardware_threads;
  } else if (const auto* b = std::get_if<BuildRecord>(&record)) {
    facts.flags = b->flags;
  } else if (const auto* c = std::get_if<ClockRecord>(&record)) {
    facts.clock_source = c->source;
    facts.tsc_invariant = c->tsc_invariant;
    facts.ticks_per_second = c->ticks_per_second;
    facts.step_ns = c->step_ns;
    facts.read_cost_ns = c->read_cost_ns;
  }
}

// "construct method t=N runtime bind=B[ param]: V of R valid values" for every configuration
// left short of --reps.
std::vector<std::string> incomplete_configs(const Plan& plan,
                                            const std::vector<ConfigState>& states, int reps) {
  std::vector<std::string> incomplete;
  for (std::size_t i = 0; i < plan.configs.size(); ++i)
    if (!states[i].complete(reps)) {
      const Config& c = plan.configs[i];
      const Setting& s = plan.settings[static_cast<std::size_t>(c.setting)];
      incomplete.push_back(
          fmt::format("{} {} t={} {} bind={}{}: {} of {} valid values", c.construct->name,
                      to_string(c.method), c.threads, runtime_column(s.runtime), s.bind,
                      c.param_value.empty() ? "" : " " + c.param_value, states[i].valid, reps));
    }
  return incomplete;
}

// The end of a sweep on stderr (the summary): skipped constructs, incomplete configurations, the
// noise seen.
void print_summary(const RunRecord& record, std::size_t configs, const RunOptions& options,
                   const std::string& meta, const CanaryPolicy& canaries, bool was_interrupted) {
  for (const std::string& u : record.unavailable)
    std::fputs(wrap("ompbench: skipped " + u, output_width(STDERR_FILENO), "", "  ").c_str(),
               stderr);
  if (!was_interrupted) print_incomplete(record.incomplete, configs, options, meta);
  if (record.slow_batches + record.accepted_slow > 0) {
    const std::string noise = fmt::format(
        "ompbench: noise: {} of {} batches ran in a slow phase (round trip > {:.2f}x {:.0f} ns "
        "or compute > {:.2f}x {:.0f} ns); {} measured again, {} kept",
        record.slow_batches + record.accepted_slow, record.batches, options.slow_factor,
        canaries.own_round_trip(), options.compute_slow_factor, canaries.compute_reference(),
        record.slow_batches, record.accepted_slow);
    std::fputs(wrap(noise, output_width(STDERR_FILENO), "", "  ").c_str(), stderr);
  }
}

// After an interrupt: where the completed batches are and the command that resumes.
void print_resume(const RunOptions& options, bool to_stdout, const std::string& path) {
  std::string resume;
  for (const std::string& arg : options.command_line) {
    if (!resume.empty()) resume += ' ';
    resume += quote_argument(arg);
  }
  std::fprintf(stderr, "ompbench: interrupted; %s holds every completed batch.\n",
               to_stdout ? "stdout" : path.c_str());
  if (!to_stdout) std::fprintf(stderr, "ompbench: resume with: %s\n", resume.c_str());
}

ResultsFile open_results(const RunOptions& options, RunRecord& record) {
  std::vector<std::string> warnings;
  ResultsFile results = ResultsFile::open(options.output, warnings);
  for (const std::string& w : warnings) std::fprintf(stderr, "ompbench: warning: %s\n", w.c_str());
  record.warnings = warnings;
  return results;
}

// What the rounds of one sweep use and update.
struct SweepState {
  const RunOptions& options;
  const Plan& plan;
  const platforms::Platform& platform;
  const std::string& platform_name;
  const WorkerPaths& workers;
  const RuntimeShims& shims;
  const sync::ClockInfo& clock;
  RunRecord& record;
  ResultsFile& results;
  std::vector<ConfigState>& states;
  ProgressBar& progress;
  MachineLock& machine_lock;
  CanaryPolicy& canaries;
  long done_values = 0;
  std::mt19937 rng;
  int round = 0;
  int phase_stops = 0;
  bool failed = false;
};

// One worker's batches: the job and the launch of its process.
struct GroupRun {
  const Setting& setting;
  std::vector<std::size_t>& members;  // configuration indexes, by batch id
  std::map<int, PendingBatch> pending;
  bool phase_changed = false;
};

Job make_job(const SweepState& s, const std::vector<std::size_t>& members) {
  Job job;
  job.ticks_per_second = s.clock.source == sync::ClockSource::kTsc ? s.clock.ticks_per_second : 0;
  job.allow_tsc = s.clock.source == sync::ClockSource::kTsc;
  job.canary_exchanges = s.options.canary_exchanges;
  for (std::size_t j = 0; j < members.size(); ++j) {
    const Config& c = s.plan.configs[members[j]];
    const ConfigState& state = s.states[members[j]];
    const int count = std::min(s.options.batch, s.options.reps - state.valid);
    job.batches.push_back({static_cast<int>(j), std::string(c.construct->name), c.method, c.threads,
                           c.param_value, std::max(1, count), state.next_rep});
  }
  return job;
}

WorkerLaunch make_launch(const SweepState& s, const Setting& setting, const Job& job) {
  WorkerLaunch launch;
  launch.executable = setting.runtime == "llvm" ? s.workers.llvm : s.workers.gnu;
  launch.unset_env = {"OMP_NUM_THREADS", "OMP_PROC_BIND", "OMP_PLACES", "OMP_DYNAMIC"};
  launch.set_env = {"OMP_PROC_BIND=" + setting.bind, "OMP_DYNAMIC=false"};
  if (!setting.places.empty()) launch.set_env.push_back("OMP_PLACES=" + setting.places);
  for (const std::string& shim : s.shims.environment(setting.runtime)) {
    launch.set_env.push_back(shim);
  }
  launch.job = format_job(job, method_options(s.options));
  return launch;
}

// A batch the worker could not run (construct unavailable there): one line per construct,
// method and runtime, not per thread count.
void note_unavailable(SweepState& s, const Config& c, const Setting& setting,
                      const std::string& why) {
  std::string reason = fmt::format("{} ({} method) on {}: {}", c.construct->name,
                                   to_string(c.method), runtime_column(setting.runtime), why);
  if (std::find(s.record.unavailable.begin(), s.record.unavailable.end(), reason) ==
      s.record.unavailable.end())
    s.record.unavailable.push_back(std::move(reason));
}

// A batch is complete: judge it by its canaries, write its rows, count what it added.
void on_end(SweepState& s, GroupRun& g, const EndRecord& end, const WorkerFacts& facts) {
  const std::size_t index = g.members.at(static_cast<std::size_t>(end.batch));
  const Config& c = s.plan.configs[index];
  ConfigState& state = s.states[index];
  PendingBatch batch = std::move(g.pending[end.batch]);
  g.pending.erase(end.batch);
  ++s.record.batches;
  if (!batch.unavailable.empty()) {
    state.unavailable = true;
    note_unavailable(s, c, g.setting, batch.unavailable);
    return;
  }
  // A round trip outside the machine's typical state is a phase change: the batch is kept
  // (valid=0), the worker stopped, and the next round waits for the typical state; this costs no
  // re-measurement budget (waiting is bounded by --max-wait instead).
  const CanaryPolicy::Verdict verdict = s.canaries.judge(end.round_trip_ns, end.compute_ns);
  if (verdict.phase) g.phase_changed = true;
  if (!verdict.phase) ++state.batches;
  const bool remeasure = verdict.slow && (verdict.phase || !state.exhausted());
  if (verdict.slow && remeasure) ++s.record.slow_batches;
  if (verdict.slow && !remeasure) ++s.record.accepted_slow;
  s.record.canary_ns.push_back(end.round_trip_ns);
  s.record.compute_canary_ns.push_back(end.compute_ns);

  const BatchRows rows =
      build_rows(row_template(c, g.setting, facts, s.platform, s.platform_name, s.record.run_id,
                              end.round_trip_ns),
                 batch.samples, remeasure, primary_metric(c.method), state.next_rep - 1);
  s.record.invalid_values += rows.invalid;
  s.results.append(rows.text);
  state.next_rep = rows.max_rep + 1;
  const int before = std::min(state.valid, s.options.reps);
  state.valid += rows.valid_primary;
  s.done_values += std::min(state.valid, s.options.reps) - before;
  s.progress.update(s.done_values, fmt::format("{} {} {} t={}", runtime_column(g.setting.runtime),
                                               g.setting.bind, c.construct->name, c.threads));
}

void on_record(SweepState& s, GroupRun& g, const WorkerRecord& record, WorkerFacts& facts) {
  if (const auto* sample = std::get_if<SampleRecord>(&record)) {
    g.pending[sample->batch].samples.push_back(*sample);
  } else if (const auto* u = std::get_if<UnavailableRecord>(&record)) {
    g.pending[u->batch].unavailable = u->reason;
  } else if (const auto* end = std::get_if<EndRecord>(&record)) {
    on_end(s, g, *end, facts);
  } else if (const auto* d = std::get_if<DiagnosticRecord>(&record)) {
    s.record.calibrations.push_back(
        {g.setting.runtime, g.setting.bind, g.setting.places, s.round, d->fields, d->kind});
  } else {
    store_worker_facts(facts, record, g.setting, s.shims);
  }
}

// One worker process: its batches, run to completion or until a phase change or an interrupt.
// Returns false when the round must end (interrupted, or the phase changed).
bool run_group(SweepState& s, WorkerGroup& group) {
  std::shuffle(group.members.begin(), group.members.end(), s.rng);
  const Setting& setting = s.plan.settings[static_cast<std::size_t>(group.setting)];
  const WorkerLaunch launch = make_launch(s, setting, make_job(s, group.members));
  GroupRun g{setting, group.members, {}, false};
  WorkerFacts& facts = s.record.workers[setting.runtime];
  const WorkerExit exit = [&] {
    const MachineLock::Held held = s.machine_lock.acquire();
    if (interrupted()) return WorkerExit{true, 0, "interrupted"};
    return run_worker(
        launch, [&] { return interrupted() || g.phase_changed; },
        [&](const std::string& line) { on_record(s, g, parse_record(line), facts); });
  }();
  constexpr int kMaxPhaseStops = 20;
  if (exit.stopped && g.phase_changed && ++s.phase_stops >= kMaxPhaseStops) {
    s.canaries.stop_using_typical(s.phase_stops);
  }
  if (exit.stopped) return false;
  if (exit.status != 0) {
    const std::string message =
        fmt::format("worker {} (bind={}, places={}) failed with {} in round {}", launch.executable,
                    setting.bind, setting.places, exit.describe, s.round);
    s.progress.clear();
    std::fprintf(stderr, "ompbench: error: %s\n", message.c_str());
    s.record.errors.push_back(message);
    s.failed = true;
    // A crashing setting would crash again: its unfinished configurations end here.
    for (std::size_t index : group.members) s.states[index].batches = s.states[index].max_batches;
  }
  return true;
}

// Rounds until every configuration is complete or exhausted, or an interrupt.
void run_rounds(SweepState& s) {
  while (!interrupted()) {
    s.canaries.wait_for_typical_state();
    std::vector<std::size_t> unfinished;
    for (std::size_t i = 0; i < s.plan.configs.size(); ++i)
      if (!s.states[i].complete(s.options.reps) && !s.states[i].exhausted())
        unfinished.push_back(i);
    if (unfinished.empty()) break;
    // One worker process per setting and team size (worker_groups.h), in a fresh order each round.
    std::vector<WorkerGroup> groups = group_by_worker(s.plan, unfinished);
    std::shuffle(groups.begin(), groups.end(), s.rng);
    for (std::size_t k = 0; k < groups.size() && !interrupted(); ++k) {
      if (!run_group(s, groups[k]))
        break;  // interrupted, or the phase changed: the next round waits
    }
    ++s.round;
  }
}

void note_oversubscription(const Plan& plan, int hardware_threads, RunRecord& record) {
  record.oversubscribed = std::any_of(plan.configs.begin(), plan.configs.end(),
                                      [](const Config& c) { return c.oversubscribed; });
  if (record.oversubscribed)
    std::fprintf(
        stderr,
        "ompbench: note: thread counts above the %d hardware threads are oversubscribed; "
        "their rows are marked oversubscribed=1 and measure time slicing, not the runtime\n",
        hardware_threads);
}

// The run record's end (status, references, incomplete configurations), written to the sidecar;
// a complete run's median round trip becomes part of the machine's typical state.
void finish_record(SweepState& s, const std::string& meta, const CanaryStore& store,
                   const std::string& machine) {
  s.record.canary_reference_ns = s.canaries.round_trip_reference();
  s.record.waited_seconds = s.canaries.waited_seconds();
  s.record.machine_lock_waited_seconds = s.machine_lock.waited_seconds();
  if (!s.machine_lock.warning().empty()) s.record.warnings.push_back(s.machine_lock.warning());
  s.record.compute_reference_ns = s.canaries.compute_reference();
  const bool was_interrupted = interrupted();
  s.record.finished = utc_timestamp();
  s.record.incomplete = incomplete_configs(s.plan, s.states, s.options.reps);
  s.record.status = was_interrupted               ? "interrupted"
                    : s.failed                    ? "failed"
                    : s.record.incomplete.empty() ? "complete"
                                                  : "incomplete";
  if (!meta.empty()) append_run(meta, s.record);
  if (s.record.status == "complete" && !s.record.canary_ns.empty()) {
    std::vector<double> canaries = s.record.canary_ns;
    std::sort(canaries.begin(), canaries.end());
    // Under the lock: concurrent runs would otherwise overwrite each other's entries.
    const MachineLock::Held held = s.machine_lock.acquire();
    const std::string problem = store.record(machine, canaries[canaries.size() / 2]);
    if (!problem.empty()) std::fprintf(stderr, "ompbench: warning: %s\n", problem.c_str());
  }
}

}  // namespace

int run_sweep(const RunOptions& options) {
  check_options(options);
  const platforms::Platform detected = platforms::detect_platform();
  const platforms::Platform platform =
      options.platform.empty() ? detected : platforms::find_platform(options.platform);
  const int hardware_threads = detected.hardware_threads();
  const WorkerPaths workers = find_workers(options);
  const RuntimeShims shims(parse_runtime_libraries(options.runtime_libs));
  RunOptions effective = options;
  if (effective.max_threads == 0 && !options.platform.empty())
    effective.max_threads = std::min(platform.hardware_threads(), hardware_threads);
  const Plan plan = make_plan(effective, workers.llvm_available, hardware_threads);

  const bool to_stdout = options.output.empty() || options.output == "-";
  const std::string meta = !options.meta.empty() ? options.meta
                           : to_stdout           ? ""
                                                 : options.output + ".meta.json";
  if (!meta.empty()) check_sidecar(meta);
  RunRecord record = start_record(options, platform, detected);
  const std::string platform_name = options.platform.empty() ? host_name() : platform.name;
  ResultsFile results = open_results(options, record);
  std::vector<ConfigState> states;
  const long already = resume_states(plan, options, results, states);
  note_oversubscription(plan, hardware_threads, record);

  const sync::ClockInfo& clock = sync::init_clock();
  InterruptGuard interrupt_guard;
  ProgressBar progress(
      options.progress == "always" || (options.progress == "auto" && isatty(2) != 0),
      static_cast<long>(plan.configs.size()) * options.reps);
  // The machine's typical state from earlier runs (canary_store.h); every measurement (the
  // driver's probes, a worker's round) holds the machine lock.
  const CanaryStore store(options.canary_store);
  MachineLock machine_lock(store.enabled() ? fmt::format("{}.{}.lock", store.path(), host_name())
                                           : "");
  std::vector<double> probes;
  {
    const MachineLock::Held held = machine_lock.acquire();
    probes = driver_canaries(options.canary_exchanges, 10);
  }
  const std::string machine = CanaryStore::machine_key(hardware_threads);
  const double typical_round_trip =
      options.canary_exchanges > 0 ? store.typical_round_trip_ns(machine) : 0;
  record.canary_typical_ns = typical_round_trip;
  CanaryPolicy canaries(options, typical_round_trip, machine_lock, progress, record);
  canaries.add_probes(probes);

  SweepState s{options,  plan,         platform, platform_name, workers,
               shims,    clock,        record,   results,       states,
               progress, machine_lock, canaries, already,       std::mt19937(options.seed)};
  run_rounds(s);
  progress.clear();
  finish_record(s, meta, store, machine);
  const bool was_interrupted = record.status == "interrupted";
  print_summary(record, plan.configs.size(), options, meta, canaries, was_interrupted);
  if (was_interrupted) {
    print_resume(options, to_stdout, results.path());
    return 130;
  }
  return s.failed ? 1 : 0;
}

}  // namespace ompscale::microbench

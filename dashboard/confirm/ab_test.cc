#include "dashboard/confirm/ab_test.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "common/child_process.h"
#include "common/error.h"
#include "common/json_input.h"
#include "common/output_file.h"
#include "common/statistics.h"
#include "common/text_table.h"
#include "common/utc_time.h"
#include "dashboard/ingest/read_results.h"

namespace ompscale::dashboard {

namespace fs = std::filesystem;

std::vector<std::string> nightly_ab_arguments(const std::vector<std::string>& sweep_args) {
  static const std::set<std::string> kept = {
      "--canary-store", "--platform", "--worker-dir", "--slow-factor",   "--compute-slow-factor",
      "--max-wait",     "--canary",   "--epcc-delay", "--epcc-test-time"};
  std::vector<std::string> out;
  bool max_wait = false;
  for (std::size_t i = 0; i < sweep_args.size(); ++i) {
    const std::string& arg = sweep_args[i];
    const std::string name = arg.substr(0, arg.find('='));
    if (!kept.contains(name)) continue;
    max_wait = max_wait || name == "--max-wait";
    out.push_back(arg);
    if (name == arg && i + 1 < sweep_args.size()) out.push_back(sweep_args[++i]);
  }
  if (!max_wait) out.insert(out.end(), {"--max-wait", "5"});
  return out;
}

namespace {

// The series key as compared between the history and an A/B's own results: every column but
// the platform (an A/B names it as ompbench detects it, the history as the night did).
std::string key_without_platform(const std::vector<std::pair<std::string, std::string>>& columns) {
  SeriesKey key;
  for (const auto& [column, value] : columns) {
    if (column != "platform") key.columns.emplace_back(column, value);
  }
  return key.canonical();
}

std::string worker_runtime(const SeriesInfo& s) {
  if (s.runtime == "libgomp") return "gnu";
  if (s.runtime == "libomp") return "llvm";
  throw UsageError(
      fmt::format("kernel {}: runtime '{}' is not one ompbench measures (libgomp, "
                  "libomp): it cannot be measured again",
                  s.description, s.runtime));
}

// The targets one ompbench run measures: one worker setting (runtime, binding, places), one
// method and parameter; constructs and thread counts are lists.
struct Group {
  std::vector<std::string> args;
  std::set<std::string> constructs;
  std::set<int> threads;
  std::vector<std::size_t> targets;
};

std::vector<Group> groups_of(const std::vector<AbTarget>& targets) {
  std::map<std::vector<std::string>, Group> groups;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    const SeriesInfo& s = targets[i].series;
    std::vector<std::string> args = {"--runtime", worker_runtime(s)};
    if (!s.bind.empty()) args.insert(args.end(), {"--bind", s.bind});
    if (!s.places.empty()) args.insert(args.end(), {"--places", s.places});
    if (!s.method.empty()) args.insert(args.end(), {"--method", s.method});
    if (s.param == "chunk") args.insert(args.end(), {"--chunk", s.param_value});
    if (s.param == "array_size") args.insert(args.end(), {"--array-size", s.param_value});
    Group& g = groups[args];
    g.args = args;
    g.constructs.insert(s.construct);
    g.threads.insert(targets[i].threads);
    g.targets.push_back(i);
  }
  std::vector<Group> out;
  for (auto& [args, g] : groups) out.push_back(std::move(g));
  return out;
}

std::vector<std::string> round_arguments(const Group& g, const AbOptions& options, int reps) {
  std::vector<std::string> args = g.args;
  std::vector<std::string> constructs(g.constructs.begin(), g.constructs.end());
  std::vector<std::string> threads;
  for (const int t : g.threads) threads.push_back(std::to_string(t));
  args.insert(args.end(), {"--construct", fmt::format("{}", fmt::join(constructs, ",")),
                           "--threads", fmt::format("{}", fmt::join(threads, ",")), "--reps",
                           std::to_string(reps), "--progress", "never"});
  args.insert(args.end(), options.ompbench_args.begin(), options.ompbench_args.end());
  return args;
}

// One build's measurement of every target in one round: the median of its repetitions and the
// median canary round trip (NaN and 0 when none of its values was valid).
struct RoundMedians {
  std::vector<double> medians, canaries;
};

// One build's measurement of the targets of one group in one round: per target, the median of
// its repetitions and the median canary round trip.
class RoundRunner {
 public:
  RoundRunner(const std::vector<AbTarget>& targets, const AbOptions& options, std::string work)
      : targets_(targets), options_(options), work_(std::move(work)) {
    groups_ = groups_of(targets);
    for (const AbTarget& t : targets) keys_.push_back(key_without_platform(t.series.columns));
  }

  std::vector<std::string> first_command() const {
    return round_arguments(groups_.front(), options_, options_.reps);
  }

  // Round pair `round`: per group, both builds' ompbench runs started together. They share the
  // canary store's machine lock, so they take turns round by round (one batch of every kernel
  // each): the builds interleave over the same seconds, and a disturbance of the machine reaches
  // both. Fills the medians and canaries (per target) of each build.
  void measure_pair(const RuntimeBuild& old_build, const RuntimeBuild& new_build, std::size_t round,
                    bool old_first, RoundMedians& old_side, RoundMedians& new_side) {
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      struct Side {
        const RuntimeBuild* build;
        const char* name;
        RoundMedians* out;
        std::string file;
        std::unique_ptr<ChildProcess> process;
      };
      std::array<Side, 2> sides;
      sides[old_first ? 0 : 1] = {&old_build, "old", &old_side, {}, {}};
      sides[old_first ? 1 : 0] = {&new_build, "new", &new_side, {}, {}};
      for (Side& side : sides) {
        side.file =
            (fs::path(work_) / fmt::format("round{:02d}-{}-{}.csv", round, side.name, g)).string();
        side.process = std::make_unique<ChildProcess>(
            launch(*side.build, g, round, side.file, log_of(side.name)));
      }
      for (Side& side : sides) {
        const int status = side.process->wait().shell_code();
        if (status != 0) {
          throw UsageError(
              fmt::format("A/B: ompbench failed (exit status {}) measuring {}; its "
                          "output is in {}",
                          status, side.build->name, log_of(side.name)));
        }
      }
      for (Side& side : sides)
        collect(side.file, groups_[g], side.out->medians, side.out->canaries);
    }
  }

 private:
  std::string log_of(const std::string& side) const {
    return (fs::path(work_) / fmt::format("ab-log-{}.txt", side)).string();
  }

  ChildOptions launch(const RuntimeBuild& build, std::size_t group, std::size_t round,
                      const std::string& file, const std::string& log) const {
    std::vector<std::string> argv = {options_.ompbench};
    const std::vector<std::string> args = round_arguments(groups_[group], options_, options_.reps);
    argv.insert(argv.end(), args.begin(), args.end());
    for (const std::string& lib : build.runtime_libs)
      argv.insert(argv.end(), {"--runtime-lib", lib});
    argv.insert(argv.end(), {"--seed", std::to_string(round + 1), "-o", file});
    std::vector<std::string> environment;
    for (const auto& [name, value] : build.environment) environment.push_back(name + "=" + value);
    ChildOptions o;
    o.argv = argv;
    o.environment = environment_with(environment);
    o.stdin_from = ChildStream::null();
    o.stdout_to = ChildStream::append(log);
    o.stderr_to = ChildStream::same_as_stdout();
    return o;
  }

  void collect(const std::string& file, const Group& g, std::vector<double>& medians,
               std::vector<double>& canaries) const {
    const std::vector<BenchRun> runs = read_results(file);
    for (const std::size_t i : g.targets) {
      bool measured = false;
      // A kernel whose values were all invalid (a round in a disturbed machine state) makes its
      // round pair unusable, not the A/B: its pair is left out and another one measured.
      medians[i] = std::nan("");
      canaries[i] = 0.0;
      for (const BenchRun& run : runs) {
        for (const ConfigSummary& c : run.configs) {
          if (c.threads != targets_[i].threads || key_without_platform(c.key.columns) != keys_[i])
            continue;
          measured = true;
          if (c.values.empty()) continue;
          medians[i] = stats::median(c.values);
          canaries[i] = c.canary_ns;
        }
      }
      if (!measured) {
        throw UsageError(fmt::format("A/B: {} at {} threads was not measured in {}; see {}",
                                     targets_[i].series.description, targets_[i].threads, file,
                                     (fs::path(work_) / "ab-log-*.txt").string()));
      }
    }
  }

  const std::vector<AbTarget>& targets_;
  const AbOptions& options_;
  std::string work_;
  std::vector<Group> groups_;
  std::vector<std::string> keys_;
};

// The rounds' arguments with a canary store whose machine lock the two builds' runs share (their
// turns come from it): the one given, else one in `work` ("none" would let them measure each
// other).
std::vector<std::string> with_shared_lock(const std::vector<std::string>& args,
                                          const std::string& work) {
  std::vector<std::string> out;
  bool store = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string value;
    if (args[i] == "--canary-store" && i + 1 < args.size()) {
      value = args[++i];
    } else if (args[i].starts_with("--canary-store=")) {
      value = args[i].substr(std::string("--canary-store=").size());
    } else {
      out.push_back(args[i]);
      continue;
    }
    if (value == "none") continue;
    out.insert(out.end(), {"--canary-store", value});
    store = true;
  }
  if (!store)
    out.insert(out.end(), {"--canary-store", (fs::path(work) / "canaries.json").string()});
  return out;
}

AbStatisticsOptions statistics_options(const AbOptions& options, std::size_t targets) {
  AbStatisticsOptions s;
  s.significance = options.significance / static_cast<double>(std::max<std::size_t>(1, targets));
  s.threshold = options.threshold;
  s.min_pairs =
      std::min<std::size_t>(5, options.rounds);  // raised to pairs_needed() by the estimate
  return s;
}

// Round pairs of every target in one machine state so far.
bool enough_pairs(const AbRun& run, double state_factor) {
  for (const AbResult& r : run.results) {
    const auto usable = std::count_if(r.rounds.begin(), r.rounds.end(), [&](const AbRound& p) {
      return usable_pair(p, state_factor);
    });
    if (static_cast<std::size_t>(usable) < run.options.rounds) return false;
  }
  return true;
}

}  // namespace

AbRun run_ab(const RuntimeBuild& old_build, const RuntimeBuild& new_build,
             const std::vector<AbTarget>& targets, const AbOptions& options,
             const std::string& work, std::ostream& progress) {
  if (targets.empty()) throw UsageError("A/B: no kernel to measure");
  if (options.rounds < 2 || options.max_rounds < options.rounds || options.reps < 1)
    throw UsageError("A/B: needs at least 2 round pairs, max_rounds >= rounds and reps >= 1");
  fs::create_directories(work);
  AbRun run{utc_timestamp(), old_build, new_build, options, {}, {}};
  run.options.ompbench_args = with_shared_lock(options.ompbench_args, work);
  // Enough pairs for the interval of each kernel's share of the significance to exclude no change.
  const AbStatisticsOptions statistics = statistics_options(options, targets.size());
  run.options.rounds = std::max(options.rounds, pairs_needed(statistics.significance));
  run.options.max_rounds = std::max(options.max_rounds, 2 * run.options.rounds);
  RoundRunner runner(targets, run.options, work);
  run.command = runner.first_command();
  for (const AbTarget& t : targets) run.results.push_back({t, {}, {}});
  RoundMedians old_side{std::vector<double>(targets.size()), std::vector<double>(targets.size())};
  RoundMedians new_side = old_side;
  for (std::size_t round = 0; round < run.options.max_rounds; ++round) {
    if (enough_pairs(run, statistics.state_factor)) break;
    const bool old_first = round % 2 == 0;
    progress << fmt::format("ompdash: A/B round pair {} ({} first)\n", round + 1,
                            old_first ? "old" : "new")
             << std::flush;
    runner.measure_pair(old_build, new_build, round, old_first, old_side, new_side);
    for (std::size_t i = 0; i < targets.size(); ++i) {
      run.results[i].rounds.push_back({old_side.medians[i], new_side.medians[i],
                                       old_side.canaries[i], new_side.canaries[i], old_first});
    }
  }
  for (AbResult& r : run.results) r.estimate = estimate_ab(r.rounds, statistics);
  return run;
}

std::string format_ab_text(const AbRun& run, std::size_t width) {
  const auto percent = [](double v) {
    return std::isnan(v) ? std::string("n/a") : fmt::format("{:+.1f}%", 100 * v);
  };
  TextTable table({TextTable::Align::kLeft, TextTable::Align::kRight, TextTable::Align::kLeft,
                   TextTable::Align::kRight, TextTable::Align::kLeft, TextTable::Align::kRight,
                   TextTable::Align::kRight});
  table.add_row({"kernel", "threads", "new build", "change", "interval", "detects", "pairs"});
  for (const AbResult& r : run.results) {
    const AbEstimate& e = r.estimate;
    table.add_row({r.target.series.description, std::to_string(r.target.threads), e.verdict,
                   percent(e.change), fmt::format("[{}, {}]", percent(e.low), percent(e.high)),
                   std::isnan(e.detectable) ? "n/a" : fmt::format("{:.1f}%", 100 * e.detectable),
                   e.dropped > 0 ? fmt::format("{} (+{} dropped)", e.pairs, e.dropped)
                                 : std::to_string(e.pairs)});
  }
  std::ostringstream out;
  out << fmt::format("A/B {}: old {} against new {}, {} round pair(s) of {} repetitions\n",
                     run.date, run.old_build.name, run.new_build.name,
                     run.results.empty() ? 0 : run.results.front().rounds.size(), run.options.reps);
  table.render_to(out, "  ", width, 0);
  return out.str();
}

}  // namespace ompscale::dashboard

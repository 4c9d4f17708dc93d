#include "dashboard/confirm/ab_test.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "common/error.h"
#include "common/json_input.h"
#include "common/output_file.h"
#include "common/statistics.h"
#include "common/text_table.h"
#include "common/utc_time.h"
#include "dashboard/ingest/read_results.h"
#include "dashboard/nightly/run_tool.h"

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

// One build's measurement of the targets of one group in one round: per target, the median of
// its repetitions and the median canary round trip.
class RoundRunner {
 public:
  RoundRunner(const std::vector<AbTarget>& targets, const AbOptions& options, std::string work)
      : targets_(targets), options_(options), work_(std::move(work)) {
    groups_ = groups_of(targets);
    log_ = (fs::path(work_) / "ab-log.txt").string();
    for (const AbTarget& t : targets) keys_.push_back(key_without_platform(t.series.columns));
  }

  std::vector<std::string> first_command() const {
    return round_arguments(groups_.front(), options_, options_.reps);
  }

  // Fills `medians` and `canaries` (per target) for `build` in round `round`.
  void measure(const RuntimeBuild& build, const std::string& side, std::size_t round,
               std::vector<double>& medians, std::vector<double>& canaries) {
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      const std::string file =
          (fs::path(work_) / fmt::format("round{:02d}-{}-{}.csv", round, side, g)).string();
      std::vector<std::string> argv = {options_.ompbench};
      const std::vector<std::string> args = round_arguments(groups_[g], options_, options_.reps);
      argv.insert(argv.end(), args.begin(), args.end());
      for (const std::string& lib : build.runtime_libs)
        argv.insert(argv.end(), {"--runtime-lib", lib});
      argv.insert(argv.end(), {"--seed", std::to_string(round + 1), "-o", file});
      const int status = run_tool(argv, build.environment, log_);
      if (status != 0) {
        throw UsageError(
            fmt::format("A/B: ompbench failed (exit status {}) measuring {}; its "
                        "output is in {}",
                        status, build.name, log_));
      }
      collect(file, groups_[g], medians, canaries);
    }
  }

 private:
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
                                     log_));
      }
    }
  }

  const std::vector<AbTarget>& targets_;
  const AbOptions& options_;
  std::string work_;
  std::string log_;
  std::vector<Group> groups_;
  std::vector<std::string> keys_;
};

AbStatisticsOptions statistics_options(const AbOptions& options, std::size_t targets) {
  AbStatisticsOptions s;
  s.significance = options.significance / static_cast<double>(std::max<std::size_t>(1, targets));
  s.threshold = options.threshold;
  s.min_pairs = std::min<std::size_t>(5, options.rounds);
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
  RoundRunner runner(targets, options, work);
  run.command = runner.first_command();
  for (const AbTarget& t : targets) run.results.push_back({t, {}, {}});
  const AbStatisticsOptions statistics = statistics_options(options, targets.size());
  std::vector<double> old_medians(targets.size()), new_medians(targets.size()),
      old_canaries(targets.size()), new_canaries(targets.size());
  for (std::size_t round = 0; round < options.max_rounds; ++round) {
    if (enough_pairs(run, statistics.state_factor)) break;
    const bool old_first = round % 2 == 0;
    progress << fmt::format("ompdash: A/B round pair {} ({} first)\n", round + 1,
                            old_first ? "old" : "new")
             << std::flush;
    if (old_first) runner.measure(old_build, "old", round, old_medians, old_canaries);
    runner.measure(new_build, "new", round, new_medians, new_canaries);
    if (!old_first) runner.measure(old_build, "old", round, old_medians, old_canaries);
    for (std::size_t i = 0; i < targets.size(); ++i) {
      run.results[i].rounds.push_back(
          {old_medians[i], new_medians[i], old_canaries[i], new_canaries[i], old_first});
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

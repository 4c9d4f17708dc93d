#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <iostream>

#include "common/error.h"
#include "common/host_name.h"
#include "common/output_file.h"
#include "common/temporary_directory.h"
#include "common/terminal.h"
#include "common/utc_time.h"
#include "dashboard/cli/commands.h"
#include "dashboard/cli/since.h"
#include "dashboard/confirm/ab_store.h"
#include "dashboard/nightly/run_tool.h"
#include "dashboard/store/history.h"

namespace ompscale::dashboard {

namespace {

// A build from its options: a kept build.json, else its libraries, environment and name.
RuntimeBuild build_of(const RuntimeBuild& given, const std::string& file,
                      const std::vector<std::string>& env, const std::string& which) {
  RuntimeBuild build = file.empty() ? given : RuntimeBuild::from_json(read_input(file), file);
  for (const std::string& setting : env) {
    const auto equals = setting.find('=');
    if (equals == std::string::npos || equals == 0)
      throw UsageError(fmt::format("--{}-env {}: expected NAME=VALUE", which, setting));
    build.environment[setting.substr(0, equals)] = setting.substr(equals + 1);
  }
  if (build.name.empty()) build.name = which == "old" ? "old build" : "new build";
  return build;
}

// The named kernels: every judged series of the constructs (and runtime) at the thread counts.
std::vector<AbTarget> named_targets(Database& db, const ConfirmArguments& a) {
  std::vector<AbTarget> targets;
  const RegressionOptions judged;
  for (const SeriesInfo& s : list_series(db)) {
    if (std::find(a.constructs.begin(), a.constructs.end(), s.construct) == a.constructs.end())
      continue;
    if (!a.runtime.empty() && s.runtime != a.runtime) continue;
    if (std::find(judged.metrics.begin(), judged.metrics.end(), s.metric) == judged.metrics.end())
      continue;
    for (const int t : a.threads.empty() ? s.threads : a.threads) targets.push_back({s, t, 0});
  }
  if (targets.empty()) {
    throw UsageError(fmt::format("no kernel of the history is {}{}", fmt::join(a.constructs, ", "),
                                 a.runtime.empty() ? "" : " on " + a.runtime));
  }
  return targets;
}

// The kernels of the regressions dated on or after --since.
std::vector<AbTarget> finding_targets(Database& db, const ConfirmArguments& a) {
  RegressionOptions options;
  options.since = resolve_since(a.since, std::time(nullptr));
  options.threshold = a.options.threshold;
  options.significance = a.options.significance;
  const RegressionReport report = find_regressions(db, options);
  std::map<std::string, std::int64_t> runs;
  for (const RunInfo& r : list_runs(db)) runs[r.run_id] = r.id;
  std::map<std::int64_t, SeriesInfo> series;
  for (SeriesInfo& s : list_series(db)) series.emplace(s.id, std::move(s));
  std::vector<AbTarget> targets;
  for (const Finding& f : report.findings) {
    if (!f.worse || !series.contains(f.series) || !runs.contains(f.run_id)) continue;
    const SeriesInfo& s = series.at(f.series);
    const int threads = f.threads > 0 ? f.threads : (s.threads.empty() ? 0 : s.threads.back());
    const bool known = std::any_of(targets.begin(), targets.end(), [&](const AbTarget& t) {
      return t.series.id == s.id && t.threads == threads;
    });
    if (threads > 0 && !known) targets.push_back({s, threads, runs.at(f.run_id)});
  }
  if (targets.empty()) {
    throw UsageError(
        fmt::format("no regression since {} to confirm; name kernels with "
                    "--construct (and --threads, --runtime)",
                    report.since));
  }
  return targets;
}

}  // namespace

int run_confirm(const ConfirmArguments& a) {
  const RuntimeBuild old_build = build_of(a.old_build, a.old_build_file, a.old_env, "old");
  const RuntimeBuild new_build = build_of(a.new_build, a.new_build_file, a.new_env, "new");
  if (!a.constructs.empty() && !a.since.empty())
    throw UsageError("--since chooses findings, --construct kernels: give one of them");
  std::vector<AbTarget> targets;
  {
    Database db = open_history(a.db, true);
    targets = a.constructs.empty() ? finding_targets(db, a) : named_targets(db, a);
  }
  AbOptions options = a.options;
  options.max_rounds = std::max(options.max_rounds, 2 * options.rounds);
  options.ompbench_args = nightly_ab_arguments(a.ompbench_args);
  options.ompbench = find_tool("ompbench", "microbench", {});
  const std::string work = make_temporary_directory("ompdash-confirm");
  std::cout << fmt::format("ompdash confirm: {} kernel(s), {} against {}; files in {}\n",
                           targets.size(), old_build.name, new_build.name, work);
  const AbRun run = run_ab(old_build, new_build, targets, options, work, std::cerr);
  Database db = open_history(a.db);
  const std::int64_t id = write_ab(db, run, a.label, host_name(), utc_timestamp());
  std::cout << format_ab_text(run, output_width(STDOUT_FILENO));
  std::cout << fmt::format("{}: A/B {} stored\n", a.db, id);
  std::error_code ignored;
  std::filesystem::remove_all(work, ignored);
  const bool slower = std::any_of(run.results.begin(), run.results.end(),
                                  [](const AbResult& r) { return r.estimate.verdict == "slower"; });
  return a.fail_on_regression && slower ? 1 : 0;
}

}  // namespace ompscale::dashboard

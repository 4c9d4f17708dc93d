// ompdash's A/B confirmation on this machine (dashboard/confirm/ab_test.h): the smallest change it
// detects, how often it confirms a planted barrier regression, and how often it calls an unchanged
// build unchanged ("not confirmed").
//
//   build/bench/ab_confirmation [--trials 10] [--rounds 10] [--reps 20] [--threads 2]
//                               [--runtime gnu] [--delay-fraction 0.1] [--keep DIR]
//
// First one ompbench run measures the barrier at --threads with tests/support/barrier_delay.c
// preloaded and a delay of 0 (the interposer's own cost included); the planted regression is a
// delay of --delay-fraction of that cost before every barrier. Then, alternating, --trials A/Bs
// of the planted build against the unchanged one and --trials of the unchanged build against
// itself, each --rounds round pairs of --reps repetitions per build. Prints every A/B's verdict,
// change and interval, then the figures:
//   planted: confirmed in N of T (the A/B's median change)
//   unchanged: not confirmed in M of T
//   smallest detectable change: the median over the A/Bs of the change each detects 80% of the
//   time at significance 0.01 (its pairs' own noise)

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_options.h"
#include "common/output_file.h"
#include "common/statistics.h"
#include "dashboard/confirm/ab_test.h"
#include "dashboard/ingest/ingest.h"
#include "dashboard/nightly/run_tool.h"
#include "dashboard/store/history.h"

namespace {

namespace fs = std::filesystem;
using namespace ompscale::dashboard;

struct Arguments {
  int trials = 10;
  int rounds = 10;
  int reps = 20;
  int threads = 2;
  std::string runtime = "gnu";
  double delay_fraction = 0.1;
  std::string keep;
};

constexpr std::string_view kUsage =
    "usage: ab_confirmation [--trials 10] [--rounds 10] [--reps 20] [--threads 2] [--runtime gnu]\n"
    "                       [--delay-fraction 0.1] [--keep DIR]\n"
    "  A/Bs of a planted barrier regression (tests/support/barrier_delay.c, a delay of the given\n"
    "  fraction of the barrier's cost) and of an unchanged build: how often each is confirmed,\n"
    "  and the smallest change the A/B detects on this machine\n";

Arguments parse(int argc, char** argv) {
  Arguments a;
  namespace b = ompscale::bench;
  for (const auto& [flag, value] : b::options(argc, argv, kUsage,
                                              {"--trials", "--rounds", "--reps", "--threads",
                                               "--runtime", "--delay-fraction", "--keep"})) {
    if (flag == "--trials") a.trials = static_cast<int>(b::integer_value(flag, value, 1, 1000));
    if (flag == "--rounds") a.rounds = static_cast<int>(b::integer_value(flag, value, 2, 1000));
    if (flag == "--reps") a.reps = static_cast<int>(b::integer_value(flag, value, 1, 100000));
    if (flag == "--threads") a.threads = static_cast<int>(b::integer_value(flag, value, 2, 4096));
    if (flag == "--runtime") a.runtime = value;
    if (flag == "--delay-fraction") a.delay_fraction = b::number_value(flag, value, 0.0, 10.0);
    if (flag == "--keep") a.keep = value;
  }
  if (a.runtime != "gnu" && a.runtime != "llvm") {
    std::fprintf(stderr, "--runtime '%s': expected gnu or llvm\n", a.runtime.c_str());
    std::exit(2);
  }
  return a;
}

RuntimeBuild delayed(long delay_ns) {
  return {fmt::format("barrier + {} ns", delay_ns),
          {},
          {{"LD_PRELOAD", OMPSCALE_BARRIER_DELAY},
           {"OMPSCALE_BARRIER_DELAY_NS", std::to_string(delay_ns)}}};
}

// The barrier measured once with a delay of 0: its kernel (from a history of that one run) and
// its median cost (us).
std::pair<AbTarget, double> barrier(const fs::path& dir, const Arguments& a) {
  const std::string results = (dir / "barrier.csv").string();
  const RuntimeBuild unchanged = delayed(0);
  std::vector<std::string> argv = {OMPSCALE_OMPBENCH_BIN,
                                   "--construct",
                                   "barrier",
                                   "--threads",
                                   std::to_string(a.threads),
                                   "--runtime",
                                   a.runtime,
                                   "--reps",
                                   "100",
                                   "--canary-store",
                                   (dir / "canaries.json").string(),
                                   "--progress",
                                   "never",
                                   "-o",
                                   results};
  if (run_tool(argv, unchanged.environment, (dir / "log.txt").string()) != 0)
    throw std::runtime_error("ompbench failed; see " + (dir / "log.txt").string());
  Database db = open_history((dir / "history.sqlite").string());
  ingest_files(db, {results}, {});
  for (const SeriesInfo& s : list_series(db)) {
    if (s.metric != "avg_cost") continue;
    const std::vector<double> values = load_samples(db, list_runs(db).back().id, s.id, a.threads);
    return {AbTarget{s, a.threads, 0}, ompscale::stats::median(values)};
  }
  throw std::runtime_error("no barrier avg_cost in " + results);
}

struct Tally {
  int confirmed = 0, unchanged = 0, trials = 0;
  std::vector<double> changes, detectable;
};

void trial(const AbTarget& target, const RuntimeBuild& old_build, const RuntimeBuild& new_build,
           const fs::path& work, const Arguments& a, Tally& tally) {
  AbOptions options;
  options.rounds = static_cast<std::size_t>(a.rounds);
  options.max_rounds = 2 * options.rounds;
  options.reps = a.reps;
  options.ompbench = OMPSCALE_OMPBENCH_BIN;
  options.ompbench_args = {"--canary-store", (work.parent_path() / "canaries.json").string(),
                           "--max-wait", "5"};
  std::ostringstream progress;
  const AbRun run = run_ab(old_build, new_build, {target}, options, work.string(), progress);
  const AbEstimate& e = run.results.at(0).estimate;
  ++tally.trials;
  tally.confirmed += e.verdict == "slower";
  tally.unchanged += e.verdict == "unchanged";
  if (!std::isnan(e.change)) tally.changes.push_back(e.change);
  if (!std::isnan(e.detectable)) tally.detectable.push_back(e.detectable);
  std::printf("  %-22s -> %-22s %-12s %+6.1f%% [%+6.1f%%, %+6.1f%%] %zu pairs%s, detects %.1f%%\n",
              old_build.name.c_str(), new_build.name.c_str(), e.verdict.c_str(), 100 * e.change,
              100 * e.low, 100 * e.high, e.pairs,
              e.dropped > 0 ? fmt::format(" (+{} dropped)", e.dropped).c_str() : "",
              100 * e.detectable);
  std::fflush(stdout);
}

double median_or_nan(std::vector<double> v) {
  return v.empty() ? std::nan("") : ompscale::stats::median(v);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Arguments a = parse(argc, argv);
    const fs::path root =
        a.keep.empty() ? fs::temp_directory_path() / fmt::format("ab-confirmation-{}", getpid())
                       : fs::path(a.keep);
    fs::create_directories(root);
    const auto [target, cost] = barrier(root, a);
    const long delay_ns = std::lround(a.delay_fraction * cost * 1000.0);
    std::printf(
        "barrier (%s, %d threads): %.3f us with the interposer and no delay; planted "
        "delay %ld ns (%.0f%% of it)\n\n",
        a.runtime.c_str(), a.threads, cost, delay_ns, 100 * a.delay_fraction);
    Tally planted, same;
    for (int t = 0; t < a.trials; ++t) {
      trial(target, delayed(0), delayed(delay_ns), root / fmt::format("planted{}", t), a, planted);
      trial(target, delayed(0), delayed(0), root / fmt::format("same{}", t), a, same);
    }
    std::vector<double> detectable = planted.detectable;
    detectable.insert(detectable.end(), same.detectable.begin(), same.detectable.end());
    std::printf(
        "\nPlanted regression (+%ld ns, %.0f%% of the barrier): confirmed in %d of %d A/Bs "
        "(median change %+.1f%%)\n"
        "Unchanged build: not confirmed in %d of %d A/Bs (%d unchanged, %d inconclusive)\n"
        "Smallest detectable change (80%% of the time, significance 0.01, %d round pairs of %d "
        "repetitions): median %.1f%%, %.1f%% to %.1f%% over the A/Bs\n",
        delay_ns, 100 * a.delay_fraction, planted.confirmed, planted.trials,
        100 * median_or_nan(planted.changes), same.trials - same.confirmed, same.trials,
        same.unchanged, same.trials - same.confirmed - same.unchanged, a.rounds, a.reps,
        100 * median_or_nan(detectable),
        detectable.empty() ? NAN : 100 * ompscale::stats::min(detectable),
        detectable.empty() ? NAN : 100 * ompscale::stats::max(detectable));
    if (a.keep.empty()) fs::remove_all(root);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ab_confirmation: %s\n", e.what());
    return 2;
  }
}

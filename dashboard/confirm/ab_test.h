#pragma once
// The A/B confirmation of a regression (docs/ompdash.md, "A/B confirmation"). A night's
// comparison with its history carries the noise of nights: the machine drifts between runs by
// more than many real changes. So the kernels a night flags are measured again at once, with the
// previous and the new runtime build alternating round by round in one run: both builds see the
// same machine state, and the comparison's noise is that of one run. A round pair is an ompbench
// run per build of the flagged kernels and thread counts only, both started together: they share
// the canary store's machine lock and take turns at it batch by batch, so the two builds
// interleave over the same seconds (which starts first alternates from pair to pair). The pairs
// give the change and its interval (ab_statistics.h).

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "dashboard/confirm/ab_statistics.h"
#include "dashboard/confirm/runtime_build.h"
#include "dashboard/store/history.h"

namespace ompscale::dashboard {

/// One kernel at one thread count to measure again.
struct AbTarget {
  SeriesInfo series;
  int threads = 0;
  std::int64_t checks_run = 0;  ///< the history run whose finding it checks (0: none)
};

struct AbOptions {
  /// Round pairs wanted with both builds in one machine state; raised to what each kernel's
  /// share of the significance needs (ab_statistics.h, pairs_needed).
  std::size_t rounds = 10;
  std::size_t max_rounds = 20;  ///< round pairs at most (pairs in two states are made again)
  int reps = 20;                ///< repetitions per build, kernel and round
  double significance = 0.01;   ///< family-wise over the targets (Bonferroni)
  double threshold = 0.05;      ///< practical threshold: changes shown below it are "unchanged"
  /// Added to every ompbench run: --canary-store (its machine lock keeps other ompbench runs out
  /// of a round), --platform, --max-wait, ... (nightly_ab_arguments picks them from a sweep's).
  std::vector<std::string> ompbench_args;
  std::string ompbench;  ///< the ompbench program
};

/// The ompbench arguments of a nightly sweep an A/B round keeps (where the canary store and the
/// workers are, the platform, the canary settings); a --max-wait of 5 s unless they set one.
std::vector<std::string> nightly_ab_arguments(const std::vector<std::string>& sweep_args);

struct AbResult {
  AbTarget target;
  std::vector<AbRound> rounds;  ///< every pair measured, in order
  AbEstimate estimate;
};

struct AbRun {
  std::string date;  ///< when it started (UTC)
  RuntimeBuild old_build, new_build;
  AbOptions options;
  std::vector<std::string> command;  ///< the ompbench arguments of a round's first run
  std::vector<AbResult> results;     ///< one per target, in order
};

/// Measures `targets` with both builds, round pair by round pair, until `rounds` pairs of each
/// target are in one machine state or `max_rounds` pairs were made. Every ompbench run writes
/// into `work` (created) and its output into `work`/ab-log-old.txt or ab-log-new.txt; without a
/// canary store in the options (or with "none") the runs share `work`/canaries.json; `progress`
/// gets a line per round pair. Throws UsageError naming the log when an ompbench run fails or a
/// target is not measured.
AbRun run_ab(const RuntimeBuild& old_build, const RuntimeBuild& new_build,
             const std::vector<AbTarget>& targets, const AbOptions& options,
             const std::string& work, std::ostream& progress);

/// One line per target: kernel, threads, verdict, change, interval, pairs.
std::string format_ab_text(const AbRun& run, std::size_t width = 0);

}  // namespace ompscale::dashboard

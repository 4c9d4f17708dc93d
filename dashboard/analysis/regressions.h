#pragma once
// Regression detection over the history (docs/ompdash.md, "Regressions"):
//
// - every run dated on or after `since` against its history, per kernel and thread count: the
//   Mann-Whitney rank test of its valid repetitions against those of the last `baseline_runs`
//   runs since the last change point (Holm-corrected over all comparisons), and the change of the
//   median beyond both the practical threshold and the kernel's noise floor (noise_floor.h);
// - change points across each kernel's whole history (change_points.h), steps and drifts dated
//   to the run where they start;
// - model-aware checks (model_checks.h);
// - runs in an unusual canary phase are reported as such and left out of every baseline, noise
//   estimate and change-point series; runs in a faster machine state than the typical one are
//   reported as such and judged against the runs of their own state only;
// - each finding carries the latest A/B confirmation of its kernel, thread count and run
//   (confirm/ab_store.h).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "dashboard/analysis/change_points.h"
#include "dashboard/analysis/findings.h"
#include "dashboard/analysis/machine_state.h"
#include "dashboard/store/derived.h"
#include "dashboard/store/history.h"
#include "dashboard/store/sqlite.h"

namespace ompscale::dashboard {

struct StoredConfirmation;

struct RegressionOptions {
  /// Judge runs and report findings dated on or after this (ISO 8601, a prefix such as
  /// "2026-11-22" works); empty: the date of the history's latest run.
  std::string since;
  /// Practical threshold: a relative change below it is never reported.
  double threshold = 0.05;
  /// Family-wise significance over all comparisons of one report.
  double significance = 0.01;
  /// Runs the latest is compared with (the most recent ones since the last change point).
  std::size_t baseline_runs = 5;
  /// Metrics judged (the primary ones of each method); empty: every metric.
  std::vector<std::string> metrics = {"avg_cost", "overhead"};
  /// Smallest number of runs on each side of a change point.
  std::size_t min_segment = 3;
  /// Level of the prediction interval the latest value is checked against.
  double interval_level = 0.99;
};

/// The report of the runs, model sets and findings dated on or after `options.since`: from the
/// derivation stored with the history when it was made with these options (the ingest of the
/// last night made it), else derived now (derivation.h).
RegressionReport find_regressions(Database& db, const RegressionOptions& options = {});

/// What a report is about besides the derivation: the history's runs, series and machine states,
/// the options, and the date findings are reported from (the options' `since`, else the latest
/// run's date).
struct ReportContext {
  ReportContext(const std::vector<RunInfo>& runs, const std::map<std::int64_t, SeriesInfo>& series,
                const std::map<std::int64_t, RunState>& states, const RegressionOptions& options);
  const std::vector<RunInfo>* run_list;
  std::map<std::int64_t, const RunInfo*> runs;
  const std::map<std::int64_t, SeriesInfo>* series;
  const std::map<std::int64_t, RunState>* states;
  const RegressionOptions* options;
  std::string since;
  /// The stored A/B results attached to the findings (null: none attached).
  const std::vector<StoredConfirmation>* confirmations = nullptr;
};

/// The report of `c.since` from a derivation (stored or made now): the tests dated since then,
/// Holm-corrected over all of them and each against its floor at their number, unless a step or
/// drift explains it; the steps, drifts and model findings dated since then; the runs in an
/// unusual phase or a faster state; every kernel's noise floor; the A/B confirmations of
/// `c.confirmations`.
RegressionReport assemble_report(const Derived& derived, const ReportContext& c);

}  // namespace ompscale::dashboard

#include "dashboard/analysis/regressions.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "dashboard/analysis/derivation.h"
#include "dashboard/analysis/noise_floor.h"
#include "dashboard/analysis/rank_test.h"
#include "dashboard/confirm/ab_store.h"

namespace ompscale::dashboard {

namespace {

using RunStates = std::map<std::int64_t, RunState>;
using RunsById = std::map<std::int64_t, const RunInfo*>;

// What a finding about a run of a series at a thread count starts from.
Finding base_finding(const SeriesInfo& s, int threads, const RunInfo& run) {
  Finding f = finding_about(s, FindingKind::kRegression);
  f.threads = threads;
  f.run_id = run.run_id;
  f.date = run.date;
  f.label = run.label;
  return f;
}

std::string amount(double value, const std::string& unit) {
  return fmt::format("{:.4g} {}", value, unit);
}

Finding test_finding(const JudgedRun& t, const Finding& base, double adjusted_p, double floor,
                     double threshold) {
  Finding f = base;
  f.kind = t.effect > 0 ? FindingKind::kRegression : FindingKind::kImprovement;
  f.worse = t.effect > 0;
  f.before = t.before;
  f.after = t.after;
  f.change = std::expm1(t.effect);
  f.noise_floor = floor;
  f.threshold = threshold;
  f.p_value = adjusted_p;
  f.severity = std::fabs(t.effect) / std::log1p(threshold);
  f.detail = fmt::format(
      "median {} against {} over the {} run(s) before ({:+.1f}%; noise floor "
      "{:.1f}%, rank test p = {:.2g})",
      amount(f.after, f.unit), amount(f.before, f.unit), t.baseline, 100 * f.change, 100 * floor,
      adjusted_p);
  return f;
}

Finding shift_finding(const ShiftRecord& s, const SeriesInfo& info, const RunsById& runs,
                      double threshold) {
  Finding f = base_finding(info, s.threads, *runs.at(s.first_run));
  f.kind = s.drift ? FindingKind::kDrift : FindingKind::kStep;
  f.worse = s.after > s.before;
  f.before = std::exp(s.before);
  f.after = std::exp(s.after);
  f.change = std::expm1(s.after - s.before);
  f.threshold = threshold;
  f.noise_floor = std::nan("");
  f.p_value = s.p_value;
  f.severity = std::fabs(s.after - s.before) / std::log1p(threshold);
  if (s.drift) f.until = runs.at(s.last_run)->date;
  f.detail =
      s.drift
          ? fmt::format("drift from {} (run {}) to {}: level {} -> {} ({:+.1f}%)", f.date, f.run_id,
                        f.until, amount(f.before, f.unit), amount(f.after, f.unit), 100 * f.change)
          : fmt::format("step at run {} ({}): level {} -> {} ({:+.1f}%)", f.run_id, f.date,
                        amount(f.before, f.unit), amount(f.after, f.unit), 100 * f.change);
  return f;
}

// Earlier runs of the machine of `run` that measured in a faster state than its typical one.
std::size_t earlier_faster_runs(const std::vector<RunInfo>& runs, const RunStates& states,
                                const RunInfo& run) {
  return static_cast<std::size_t>(std::count_if(runs.begin(), runs.end(), [&](const RunInfo& r) {
    return states.at(r.id).faster && r.date < run.date && r.platform == run.platform &&
           r.host == run.host;
  }));
}

// A finding about a whole run (its machine state), not about one kernel: no change, no p-value.
Finding run_finding(FindingKind kind, const RunInfo& r) {
  Finding f;
  f.kind = kind;
  f.run_id = r.run_id;
  f.date = r.date;
  f.label = r.label;
  f.platform = r.platform;
  f.kernel = fmt::format("run {} on {}", r.run_id, r.host.empty() ? r.platform : r.host);
  f.p_value = std::nan("");
  f.noise_floor = std::nan("");
  f.change = std::nan("");
  return f;
}

// A run in a faster state than the machine's typical one: said, since the typical state may have
// changed; it is judged against the earlier runs of its own state.
Finding faster_run(const std::vector<RunInfo>& runs, const RunStates& states, const RunInfo& r) {
  Finding f = run_finding(FindingKind::kFasterState, r);
  const std::size_t earlier = earlier_faster_runs(runs, states, r);
  f.detail = fmt::format(
      "{}: faster than this machine's typical state, which may have changed (a new machine, a "
      "quieter host, a new kernel); its {} configurations are judged against the runs of this "
      "state only ({})",
      states.at(r.id).note, r.configurations,
      earlier == 0 ? "none before it: kept as their history"
                   : fmt::format("{} before it", earlier));
  return f;
}

std::vector<Finding> unusual_runs(const std::vector<RunInfo>& runs, const RunStates& states,
                                  const std::string& since) {
  std::vector<Finding> out;
  for (const RunInfo& r : runs) {
    if (r.date < since) continue;
    if (states.at(r.id).faster) out.push_back(faster_run(runs, states, r));
    if (!states.at(r.id).unusual) continue;
    Finding f = run_finding(FindingKind::kUnusualPhase, r);
    const std::string& note = states.at(r.id).note;
    f.detail = fmt::format(
        "{}; its {} configurations are not judged and not used as history",
        note.starts_with("measured in") ? note : "measured in an unusual canary phase: " + note,
        r.configurations);
    out.push_back(std::move(f));
  }
  return out;
}

std::string latest_date(const std::vector<RunInfo>& runs) {
  std::string latest;
  for (const RunInfo& r : runs) latest = std::max(latest, r.date);
  return latest;
}

void order(std::vector<Finding>& findings) {
  std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    if (a.worse != b.worse) return a.worse;
    const auto phase = [](const Finding& f) {
      return f.kind == FindingKind::kUnusualPhase || f.kind == FindingKind::kFasterState;
    };
    const bool a_phase = phase(a);
    const bool b_phase = phase(b);
    if (a_phase != b_phase) return b_phase;
    return a.severity > b.severity;
  });
}

// Steps and drifts, then the runs that exceed their floor after Holm's correction and that no
// step or drift explains already.
std::vector<Finding> cost_findings(const Derived& d, const std::vector<const JudgedRun*>& tests,
                                   const ReportContext& c) {
  const RegressionOptions& options = *c.options;
  std::vector<Finding> findings;
  // Runs a step or drift already explains, per (series, threads): [first date, last date].
  std::map<std::pair<std::int64_t, int>, std::vector<std::pair<std::string, std::string>>> shifts;
  for (const ShiftRecord& s : d.shifts) {
    if (c.runs.at(s.first_run)->date < c.since) continue;
    Finding f = shift_finding(s, c.series->at(s.series), c.runs, options.threshold);
    shifts[{f.series, f.threads}].emplace_back(f.date, f.until.empty() ? f.date : f.until);
    findings.push_back(std::move(f));
  }
  const auto explained = [&](const Finding& f) {
    for (const auto& [first, last] : shifts[{f.series, f.threads}]) {
      if (f.date >= first && f.date <= last) return true;
    }
    return false;
  };
  std::vector<double> raw;
  for (const JudgedRun* t : tests) raw.push_back(t->p_value);
  const std::vector<double> adjusted = holm_adjust(raw);
  for (std::size_t i = 0; i < tests.size(); ++i) {
    const JudgedRun& t = *tests[i];
    const NoiseEstimate noise{t.noise_variance, t.noise_dof};
    const double steps_floor = resolution_floor(t.resolution, t.before);
    const double floor = std::max(detectable_change(noise, static_cast<std::size_t>(t.baseline),
                                                    tests.size(), options.significance),
                                  steps_floor);
    const double threshold = std::max(options.threshold, floor);
    if (adjusted[i] >= options.significance || std::fabs(t.effect) <= std::log1p(threshold)) {
      continue;
    }
    Finding f = test_finding(t, base_finding(c.series->at(t.series), t.threads, *c.runs.at(t.run)),
                             adjusted[i], floor, threshold);
    if (!explained(f)) findings.push_back(std::move(f));
  }
  return findings;
}

KernelNoise kernel_noise(const NoiseRecord& r, const SeriesInfo& s) {
  KernelNoise n;
  n.series = r.series;
  n.kernel = s.description;
  n.construct = s.construct;
  n.runtime = s.runtime;
  n.platform = s.platform;
  n.threads = r.threads;
  n.runs = static_cast<std::size_t>(r.runs);
  n.sigma = r.sigma;
  n.floor = r.floor;
  return n;
}

Finding model_finding(const ModelFindingRecord& m, const SeriesInfo& s) {
  Finding f = finding_about(s, finding_kind(m.kind));
  f.model_set = m.model_set;
  f.thread_class = m.thread_class;
  f.date = m.date;
  f.label = m.label;
  f.run_id = m.run_id;
  f.p_value = std::nan("");
  f.worse = m.worse;
  f.severity = m.severity;
  f.threads = m.threads;
  f.before = m.before;
  f.after = m.after;
  f.change = m.change;
  f.noise_floor = m.noise_floor;
  f.threshold = m.threshold;
  f.detail = m.detail;
  return f;
}

}  // namespace

RegressionReport assemble_report(const Derived& d, const ReportContext& c) {
  RegressionReport report;
  report.since = c.since;
  report.histories = static_cast<std::size_t>(d.histories);
  std::vector<const JudgedRun*> tests;
  for (const JudgedRun& t : d.judged) {
    if (c.runs.at(t.run)->date >= c.since) tests.push_back(&t);
  }
  report.tests = tests.size();
  std::vector<Finding> findings = cost_findings(d, tests, c);
  for (const NoiseRecord& n : d.noise)
    report.noise.push_back(kernel_noise(n, c.series->at(n.series)));
  for (const ModelFindingRecord& m : d.model_findings) {
    if (m.date >= c.since) findings.push_back(model_finding(m, c.series->at(m.series)));
  }
  for (Finding& f : unusual_runs(*c.run_list, *c.states, c.since)) findings.push_back(std::move(f));
  if (c.confirmations != nullptr) attach_confirmations(findings, *c.confirmations);
  order(findings);
  report.findings = std::move(findings);
  return report;
}

ReportContext::ReportContext(const std::vector<RunInfo>& runs_,
                             const std::map<std::int64_t, SeriesInfo>& series_,
                             const std::map<std::int64_t, RunState>& states_,
                             const RegressionOptions& options_)
    : run_list(&runs_), series(&series_), states(&states_), options(&options_) {
  for (const RunInfo& r : runs_) runs[r.id] = &r;
  since = options_.since.empty() ? latest_date(runs_) : options_.since;
}

RegressionReport find_regressions(Database& db, const RegressionOptions& options) {
  const std::vector<RunInfo> runs = list_runs(db);
  const std::map<std::int64_t, RunState> states = run_states(runs);
  std::map<std::int64_t, SeriesInfo> series;
  for (SeriesInfo& s : list_series(db)) series.emplace(s.id, std::move(s));
  const std::vector<StoredConfirmation> confirmations = load_confirmations(db);
  ReportContext c(runs, series, states, options);
  c.confirmations = &confirmations;
  if (derivation_current(db, options)) return assemble_report(read_derived(db, c.since), c);
  // Other options than the stored derivation's, or a history changed since: derive what this
  // report needs.
  return assemble_report(derive(db, options, {.judge_from = c.since}).derived, c);
}

}  // namespace ompscale::dashboard

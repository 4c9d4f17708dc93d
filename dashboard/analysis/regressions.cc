#include "dashboard/analysis/regressions.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "common/statistics.h"
#include "dashboard/analysis/machine_state.h"
#include "dashboard/analysis/model_checks.h"
#include "dashboard/analysis/noise_floor.h"
#include "dashboard/analysis/rank_test.h"
#include "dashboard/confirm/ab_store.h"
#include "dashboard/store/history.h"

namespace ompscale::dashboard {

namespace {

// Fewer group differences than this before a run: the run's own differences to its predecessor
// (over the whole group, every one counted as noise) are used too.
constexpr std::size_t kGroupMinimum = 8;

// One kernel x thread count history, ready to judge.
struct Prepared {
  const SeriesInfo* info = nullptr;
  const SeriesHistory* history = nullptr;
  bool faster = false;               // the runs of a faster machine state than the typical one
  std::string group;                 // platform, runtime, method, metric, state
  std::vector<std::size_t> normal;   // usable points (typical phase, positive median)
  std::vector<double> level;         // log median of each usable point
  std::vector<ChangePoint> changes;  // indices into `normal`
  std::vector<double> diffs;         // |level[i] - level[i-1]| within segments
  std::vector<std::size_t> diff_at;  // i of each diff
  // Runs that start a new level without a change point (too few runs on one side for one): a
  // difference to the run before beyond 5 robust standard deviations. Baselines start after them.
  std::vector<std::size_t> jumps;
};

using RunStates = std::map<std::int64_t, RunState>;

// A point of the state `faster` says (typical, or faster than typical) that can be judged.
bool usable(const HistoryPoint& p, const RunStates& states, bool faster) {
  const RunState& state = states.at(p.run);
  return !p.unusual_phase && !state.unusual && state.faster == faster &&
         p.canary_state != "unusual" && p.n > 0 && p.median > 0;
}

bool is_change(const Prepared& p, std::size_t i) {
  return std::any_of(p.changes.begin(), p.changes.end(),
                     [&](const ChangePoint& c) { return c.index == i; });
}

Prepared prepare(const SeriesInfo& info, const SeriesHistory& h, const ChangePointOptions& cp,
                 const RunStates& states, bool faster) {
  Prepared p;
  p.info = &info;
  p.history = &h;
  p.faster = faster;
  p.group = fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}", info.platform, info.runtime, info.method,
                        info.metric, faster);
  for (std::size_t i = 0; i < h.points.size(); ++i) {
    if (!usable(h.points[i], states, faster)) continue;
    p.normal.push_back(i);
    p.level.push_back(std::log(h.points[i].median));
  }
  p.changes = e_divisive(p.level, cp);
  for (std::size_t i = 1; i < p.level.size(); ++i) {
    if (is_change(p, i)) continue;  // a real change is not noise
    p.diffs.push_back(std::fabs(p.level[i] - p.level[i - 1]));
    p.diff_at.push_back(i);
  }
  for (std::size_t j = 0; j < p.diffs.size(); ++j) {
    if (is_jump(p.diffs[j], p.diffs)) p.jumps.push_back(p.diff_at[j]);
  }
  return p;
}

const std::string& date_of(const Prepared& p, std::size_t normal_index) {
  return p.history->points[p.normal[normal_index]].date;
}

// Differences of every kernel of one group, with the date of the later run.
using GroupDiffs = std::map<std::string, std::vector<std::pair<std::string, double>>>;

GroupDiffs group_diffs(const std::vector<Prepared>& prepared) {
  GroupDiffs out;
  for (const Prepared& p : prepared) {
    for (std::size_t j = 0; j < p.diffs.size(); ++j) {
      out[p.group].emplace_back(date_of(p, p.diff_at[j]), p.diffs[j]);
    }
  }
  return out;
}

NoiseEstimate group_noise(const GroupDiffs& groups, const std::string& group,
                          const std::string& date) {
  const auto it = groups.find(group);
  if (it == groups.end()) return {};
  std::vector<double> before, at;
  for (const auto& [d, value] : it->second) {
    if (d < date) before.push_back(value);
    if (d == date) at.push_back(value);
  }
  if (before.size() >= kGroupMinimum) return estimate_from_differences(before);
  // Too little history: every difference of the group tonight counts as noise. A machine that
  // shifted for many kernels at once cannot be told from a runtime that did without history.
  before.insert(before.end(), at.begin(), at.end());
  return estimate_from_differences(before, true);
}

// The night-to-night noise a run at `position` is judged with: the kernel's differences before
// it, shrunk towards its group's as of the run's date.
NoiseEstimate noise_at(const Prepared& p, std::size_t position, const GroupDiffs& groups) {
  std::vector<double> own;
  for (std::size_t j = 0; j < p.diffs.size(); ++j) {
    if (p.diff_at[j] < position) own.push_back(p.diffs[j]);
  }
  return moderated(estimate_from_differences(own),
                   group_noise(groups, p.group, date_of(p, position)));
}

// One run judged against its history, before the correction for multiple comparisons.
struct Test {
  const Prepared* prepared;
  std::size_t position;  // index into normal
  std::size_t baseline;  // runs in the baseline
  double before;         // geometric mean of the baseline medians
  double after;          // the run's median
  double effect;         // log(after / before)
  NoiseEstimate noise;
  double steps_floor;  // two steps of the values' resolution, relative to the median
  double p_value;
};

std::optional<Test> judge(Database& db, const Prepared& p, std::size_t position,
                          const GroupDiffs& groups, const RunStates& states,
                          const RegressionOptions& options) {
  std::size_t start = 0;
  for (const ChangePoint& c : p.changes) {
    if (c.index < position) start = std::max(start, c.index);
  }
  for (const std::size_t jump : p.jumps) {
    if (jump < position) start = std::max(start, jump);
  }
  if (position > options.baseline_runs) start = std::max(start, position - options.baseline_runs);
  if (start >= position) return std::nullopt;  // nothing to compare with
  const NoiseEstimate noise = noise_at(p, position, groups);
  if (!noise.known()) return std::nullopt;
  const SeriesHistory& h = *p.history;
  const HistoryPoint& target = h.points[p.normal[position]];
  std::vector<double> baseline_samples;
  double mean_level = 0.0;
  std::size_t baseline = 0;
  for (std::size_t j = start; j < position; ++j) {
    const HistoryPoint& before = h.points[p.normal[j]];
    // Only runs in the target's machine state (both typical may still differ a little).
    if (!same_state(states.at(before.run).canary_ns, states.at(target.run).canary_ns)) continue;
    const std::vector<double> s = load_samples(db, before.run, h.series, h.threads);
    baseline_samples.insert(baseline_samples.end(), s.begin(), s.end());
    mean_level += p.level[j];
    ++baseline;
  }
  if (baseline == 0) return std::nullopt;
  mean_level /= static_cast<double>(baseline);
  const std::vector<double> samples = load_samples(db, target.run, h.series, h.threads);
  const RankTest rank = mann_whitney(samples, baseline_samples);
  std::vector<double> all = samples;
  all.insert(all.end(), baseline_samples.begin(), baseline_samples.end());
  const double steps = resolution_floor(resolution(all), std::exp(mean_level));
  return Test{&p,
              position,
              position - start,
              std::exp(mean_level),
              target.median,
              p.level[position] - mean_level,
              noise,
              steps,
              rank.p_value};
}

Finding base_finding(const Prepared& p, std::size_t position) {
  const SeriesInfo& s = *p.info;
  const HistoryPoint& point = p.history->points[p.normal[position]];
  Finding f = finding_about(s, FindingKind::kRegression);
  f.threads = p.history->threads;
  f.run_id = point.run_id;
  f.date = point.date;
  f.label = point.label;
  return f;
}

std::string amount(double value, const std::string& unit) {
  return fmt::format("{:.4g} {}", value, unit);
}

Finding test_finding(const Test& t, double adjusted_p, double floor, double threshold) {
  Finding f = base_finding(*t.prepared, t.position);
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

std::vector<Finding> shift_findings(const Prepared& p, const std::string& since, double threshold,
                                    std::size_t min_segment) {
  std::vector<Finding> out;
  for (const LevelShift& s : level_shifts(p.level, p.changes, min_segment)) {
    if (date_of(p, s.first) < since) continue;
    Finding f = base_finding(p, s.first);
    f.kind = s.drift() ? FindingKind::kDrift : FindingKind::kStep;
    f.worse = s.after > s.before;
    f.before = std::exp(s.before);
    f.after = std::exp(s.after);
    f.change = std::expm1(s.after - s.before);
    f.threshold = threshold;
    f.noise_floor = std::nan("");
    f.p_value = s.p_value;
    f.severity = std::fabs(s.after - s.before) / std::log1p(threshold);
    if (s.drift()) f.until = date_of(p, s.last);
    f.detail = s.drift()
                   ? fmt::format("drift from {} (run {}) to {}: level {} -> {} ({:+.1f}%)", f.date,
                                 f.run_id, f.until, amount(f.before, f.unit),
                                 amount(f.after, f.unit), 100 * f.change)
                   : fmt::format("step at run {} ({}): level {} -> {} ({:+.1f}%)", f.run_id, f.date,
                                 amount(f.before, f.unit), amount(f.after, f.unit), 100 * f.change);
    out.push_back(std::move(f));
  }
  return out;
}

bool judged_metric(const SeriesInfo& s, const RegressionOptions& options) {
  return options.metrics.empty() || s.metric.empty() ||
         std::find(options.metrics.begin(), options.metrics.end(), s.metric) !=
             options.metrics.end();
}

// Earlier runs of the machine of `run` that measured in a faster state than its typical one.
std::size_t earlier_faster_runs(const std::vector<RunInfo>& runs, const RunStates& states,
                                const RunInfo& run) {
  return static_cast<std::size_t>(std::count_if(runs.begin(), runs.end(), [&](const RunInfo& r) {
    return states.at(r.id).faster && r.date < run.date && r.platform == run.platform &&
           r.host == run.host;
  }));
}

// A run in a faster state than the machine's typical one: said, since the typical state may have
// changed; it is judged against the earlier runs of its own state.
Finding faster_run(const std::vector<RunInfo>& runs, const RunStates& states, const RunInfo& r) {
  Finding f;
  f.kind = FindingKind::kFasterState;
  f.run_id = r.run_id;
  f.date = r.date;
  f.label = r.label;
  f.platform = r.platform;
  f.kernel = fmt::format("run {} on {}", r.run_id, r.host.empty() ? r.platform : r.host);
  f.p_value = std::nan("");
  f.noise_floor = std::nan("");
  f.change = std::nan("");
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
    Finding f;
    f.kind = FindingKind::kUnusualPhase;
    f.run_id = r.run_id;
    f.date = r.date;
    f.label = r.label;
    f.platform = r.platform;
    f.kernel = fmt::format("run {} on {}", r.run_id, r.host.empty() ? r.platform : r.host);
    f.p_value = std::nan("");
    f.noise_floor = std::nan("");
    f.change = std::nan("");
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

// Every judged run against its history, before the correction for multiple comparisons.
std::vector<Test> run_tests(Database& db, const std::vector<Prepared>& prepared,
                            const GroupDiffs& groups, const RunStates& states,
                            const RegressionOptions& options, const std::string& since) {
  std::vector<Test> tests;
  for (const Prepared& p : prepared) {
    for (std::size_t i = 0; i < p.normal.size(); ++i) {
      if (date_of(p, i) < since) continue;
      if (auto t = judge(db, p, i, groups, states, options)) tests.push_back(*t);
    }
  }
  return tests;
}

// Steps and drifts, then the runs that exceed their floor after Holm's correction and that no
// step or drift explains already.
std::vector<Finding> cost_findings(const std::vector<Prepared>& prepared,
                                   const std::vector<Test>& tests, const RegressionOptions& options,
                                   const std::string& since) {
  std::vector<Finding> findings;
  // Runs a step or drift already explains, per (series, threads): [first date, last date].
  std::map<std::pair<std::int64_t, int>, std::vector<std::pair<std::string, std::string>>> shifts;
  for (const Prepared& p : prepared) {
    for (Finding& f : shift_findings(p, since, options.threshold, options.min_segment)) {
      shifts[{f.series, f.threads}].emplace_back(f.date, f.until.empty() ? f.date : f.until);
      findings.push_back(std::move(f));
    }
  }
  const auto explained = [&](const Finding& f) {
    for (const auto& [first, last] : shifts[{f.series, f.threads}]) {
      if (f.date >= first && f.date <= last) return true;
    }
    return false;
  };
  std::vector<double> raw;
  for (const Test& t : tests) raw.push_back(t.p_value);
  const std::vector<double> adjusted = holm_adjust(raw);
  for (std::size_t i = 0; i < tests.size(); ++i) {
    const Test& t = tests[i];
    const double floor = std::max(
        detectable_change(t.noise, t.baseline, tests.size(), options.significance), t.steps_floor);
    const double threshold = std::max(options.threshold, floor);
    if (adjusted[i] >= options.significance || std::fabs(t.effect) <= std::log1p(threshold)) {
      continue;
    }
    Finding f = test_finding(t, adjusted[i], floor, threshold);
    if (!explained(f)) findings.push_back(std::move(f));
  }
  return findings;
}

// A judged kernel's floor now, from all of its history and its latest values' resolution.
KernelNoise kernel_noise(Database& db, const Prepared& p, const GroupDiffs& groups,
                         const RegressionOptions& options, std::size_t histories) {
  KernelNoise n;
  n.series = p.info->id;
  n.kernel = p.info->description;
  n.construct = p.info->construct;
  n.runtime = p.info->runtime;
  n.platform = p.info->platform;
  n.threads = p.history->threads;
  n.runs = p.normal.size();
  // What its latest run was (or would have been) judged with.
  const std::size_t last = p.normal.empty() ? 0 : p.normal.size() - 1;
  const NoiseEstimate noise = last == 0 ? NoiseEstimate{} : noise_at(p, last, groups);
  n.sigma = noise.sigma();
  n.floor = detectable_change(noise, std::min(last, options.baseline_runs),
                              std::max<std::size_t>(1, histories), options.significance);
  if (!p.normal.empty() && !std::isnan(n.floor)) {
    const HistoryPoint& last = p.history->points[p.normal.back()];
    const std::vector<double> values =
        load_samples(db, last.run, p.history->series, p.history->threads);
    n.floor = std::max(n.floor, resolution_floor(resolution(values), last.median));
  }
  return n;
}

std::vector<Finding> model_side(Database& db, const std::map<std::int64_t, SeriesInfo>& series,
                                const std::vector<KernelNoise>& noise,
                                const RegressionOptions& options, const std::string& since) {
  ModelCheckOptions model_options;
  model_options.since = since;
  model_options.threshold = options.threshold;
  model_options.interval_level = options.interval_level;
  model_options.noise_floor = [&](std::int64_t s, int threads) {
    for (const KernelNoise& n : noise) {
      if (n.series == s && n.threads == threads) return n.floor;
    }
    return std::nan("");
  };
  std::vector<ModelHistory> models = load_model_histories(db);
  std::erase_if(
      models, [&](const ModelHistory& m) { return !judged_metric(series.at(m.series), options); });
  return model_findings(models, series, model_options);
}

}  // namespace

RegressionReport find_regressions(Database& db, const RegressionOptions& options) {
  RegressionReport report;
  const std::vector<RunInfo> runs = list_runs(db);
  const RunStates states = run_states(runs);
  report.since = options.since.empty() ? latest_date(runs) : options.since;
  std::map<std::int64_t, SeriesInfo> series;
  for (SeriesInfo& s : list_series(db)) series.emplace(s.id, std::move(s));
  const std::vector<SeriesHistory> histories = load_histories(db);
  std::vector<const SeriesHistory*> judged;
  for (const SeriesHistory& h : histories) {
    if (judged_metric(series.at(h.series), options)) judged.push_back(&h);
  }
  report.histories = judged.size();
  ChangePointOptions cp;
  cp.min_segment = options.min_segment;
  cp.min_change = std::log1p(options.threshold);
  cp.significance =
      options.significance / static_cast<double>(std::max<std::size_t>(1, judged.size()));
  std::vector<Prepared> prepared;
  prepared.reserve(judged.size());
  for (const SeriesHistory* h : judged) {
    prepared.push_back(prepare(series.at(h->series), *h, cp, states, false));
    // Runs of a faster machine state: a history of their own, when there are any.
    Prepared faster = prepare(series.at(h->series), *h, cp, states, true);
    if (!faster.normal.empty()) prepared.push_back(std::move(faster));
  }
  const GroupDiffs groups = group_diffs(prepared);
  const std::vector<Test> tests = run_tests(db, prepared, groups, states, options, report.since);
  report.tests = tests.size();
  std::vector<Finding> findings = cost_findings(prepared, tests, options, report.since);
  for (const Prepared& p : prepared) {
    if (!p.faster) report.noise.push_back(kernel_noise(db, p, groups, options, report.histories));
  }
  for (Finding& f : model_side(db, series, report.noise, options, report.since)) {
    findings.push_back(std::move(f));
  }
  for (Finding& f : unusual_runs(runs, states, report.since)) findings.push_back(std::move(f));
  attach_confirmations(findings, load_confirmations(db));
  order(findings);
  report.findings = std::move(findings);
  return report;
}

}  // namespace ompscale::dashboard

#include "dashboard/analysis/derivation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "dashboard/analysis/change_points.h"
#include "dashboard/analysis/machine_state.h"
#include "dashboard/analysis/model_checks.h"
#include "dashboard/analysis/noise_floor.h"
#include "dashboard/analysis/rank_test.h"
#include "dashboard/ingest/read_models.h"
#include "dashboard/store/history.h"

namespace ompscale::dashboard {

namespace {

// Fewer group differences than this before a run: the run's own differences to its predecessor
// (over the whole group, every one counted as noise) are used too.
constexpr std::size_t kGroupMinimum = 8;

using RunStates = std::map<std::int64_t, RunState>;

// What every history's analysis reads: the runs by id and their machine states.
struct Context {
  std::map<std::int64_t, const RunInfo*> runs;
  RunStates states;
  const RegressionOptions* options = nullptr;
};

// One kernel x thread count history, ready to judge.
struct Prepared {
  const SeriesInfo* info = nullptr;
  const LevelHistory* history = nullptr;
  bool faster = false;               // the runs of a faster machine state than the typical one
  std::string group;                 // platform, runtime, method, metric, state
  std::vector<std::size_t> normal;   // usable points (typical phase, positive median)
  std::vector<double> level;         // log median of each usable point
  std::vector<ChangePoint> changes;  // indices into `normal`
  std::vector<double> diffs;         // |level[i] - level[i-1]| within segments
  std::vector<std::size_t> diff_at;  // i of each diff, ascending
  // Runs that start a new level without a change point (too few runs on one side for one): a
  // difference to the run before beyond 5 robust standard deviations. Baselines start after them.
  std::vector<std::size_t> jumps;
  // own_noise[k]: the estimate from the first k differences (those before position diff_at[k]).
  std::vector<NoiseEstimate> own_noise;

  std::int64_t run(std::size_t position) const { return history->points[normal[position]].run; }
};

// A point of the state `faster` says (typical, or faster than typical) that can be judged.
bool usable(const LevelPoint& p, const Context& c, bool faster) {
  const RunState& state = c.states.at(p.run);
  return !state.unusual && state.faster == faster && !p.unusual_canary && p.n > 0 && p.median > 0;
}

const std::string& date_of(const Context& c, std::int64_t run) {
  return c.runs.at(run)->date;
}

Prepared prepare(const SeriesInfo& info, const LevelHistory& h, const ChangePointOptions& cp,
                 const Context& c, bool faster) {
  Prepared p;
  p.info = &info;
  p.history = &h;
  p.faster = faster;
  p.group = fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}", info.platform, info.runtime, info.method,
                        info.metric, faster);
  for (std::size_t i = 0; i < h.points.size(); ++i) {
    if (!usable(h.points[i], c, faster)) continue;
    p.normal.push_back(i);
    p.level.push_back(std::log(h.points[i].median));
  }
  p.changes = e_divisive(p.level, cp);
  std::vector<bool> is_change(p.level.size(), false);
  for (const ChangePoint& change : p.changes) is_change[change.index] = true;
  for (std::size_t i = 1; i < p.level.size(); ++i) {
    if (is_change[i]) continue;  // a real change is not noise
    p.diffs.push_back(std::fabs(p.level[i] - p.level[i - 1]));
    p.diff_at.push_back(i);
  }
  const double bound = jump_bound(p.diffs);
  for (std::size_t j = 0; j < p.diffs.size(); ++j) {
    if (p.diffs[j] > bound) p.jumps.push_back(p.diff_at[j]);
  }
  PrefixNoise prefix(p.diffs);
  p.own_noise.push_back(prefix.estimate());
  for (const double d : p.diffs) {
    prefix.add(d);
    p.own_noise.push_back(prefix.estimate());
  }
  return p;
}

// The group's noise as of each date: its kernels' differences dated before it (the estimate of a
// prefix of them in date order), or with fewer than kGroupMinimum of those, every difference up
// to and including that night, each counted as noise. A machine that shifted for many kernels at
// once cannot be told from a runtime that did without history.
class GroupNoise {
 public:
  void add(const std::string* date, double difference) { diffs_.emplace_back(date, difference); }

  void finish() {
    std::stable_sort(diffs_.begin(), diffs_.end(),
                     [](const auto& a, const auto& b) { return *a.first < *b.first; });
    std::vector<double> values;
    for (const auto& [date, d] : diffs_) values.push_back(d);
    PrefixNoise prefix(values);
    prefix_.push_back(prefix.estimate());
    for (const double d : values) {
      prefix.add(d);
      prefix_.push_back(prefix.estimate());
      keeping_.push_back(prefix.estimate_keeping_jumps());
    }
  }

  NoiseEstimate at(const std::string& date) const {
    const auto by_date = [](const auto& entry, const std::string& d) { return *entry.first < d; };
    const auto first = std::lower_bound(diffs_.begin(), diffs_.end(), date, by_date);
    const auto before = static_cast<std::size_t>(first - diffs_.begin());
    if (before >= kGroupMinimum) return prefix_[before];
    const auto last =
        std::upper_bound(first, diffs_.end(), date,
                         [](const std::string& d, const auto& entry) { return d < *entry.first; });
    const auto through = static_cast<std::size_t>(last - diffs_.begin());
    return through == 0 ? NoiseEstimate{} : keeping_[through - 1];
  }

 private:
  std::vector<std::pair<const std::string*, double>> diffs_;
  std::vector<NoiseEstimate> prefix_;   // [k]: the first k, jumps left out
  std::vector<NoiseEstimate> keeping_;  // [k]: the first k + 1, every one kept
};

using Groups = std::map<std::string, GroupNoise>;

Groups group_noise(const std::vector<Prepared>& prepared, const Context& c) {
  Groups groups;
  for (const Prepared& p : prepared) {
    GroupNoise& g = groups[p.group];
    for (std::size_t j = 0; j < p.diffs.size(); ++j) {
      g.add(&date_of(c, p.run(p.diff_at[j])), p.diffs[j]);
    }
  }
  for (auto& [name, g] : groups) g.finish();
  return groups;
}

// The night-to-night noise a run at `position` is judged with: the kernel's differences before
// it, shrunk towards its group's as of the run's date.
NoiseEstimate noise_at(const Prepared& p, std::size_t position, const Groups& groups,
                       const Context& c) {
  const auto before = static_cast<std::size_t>(
      std::lower_bound(p.diff_at.begin(), p.diff_at.end(), position) - p.diff_at.begin());
  const auto group = groups.find(p.group);
  return moderated(p.own_noise[before], group == groups.end()
                                            ? NoiseEstimate{}
                                            : group->second.at(date_of(c, p.run(position))));
}

// The repetitions of one history's runs, each read once, and the rank tests stored for it.
class HistorySamples {
 public:
  HistorySamples(RepetitionReader& reader, const LevelHistory& h) : reader_(reader), h_(h) {}
  const std::vector<double>& of(std::int64_t run) {
    auto it = cache_.find(run);
    if (it == cache_.end())
      it = cache_.emplace(run, reader_.read(run, h_.series, h_.threads)).first;
    return it->second;
  }

 private:
  RepetitionReader& reader_;
  const LevelHistory& h_;
  std::map<std::int64_t, std::vector<double>> cache_;
};

struct Judging {
  const Groups* groups = nullptr;
  HistorySamples* samples = nullptr;
  const std::map<std::int64_t, JudgedRun>* stored = nullptr;
};

// The rank test of the run at `position` against `baseline` (positions), and the resolution of
// their repetitions: the stored one when its baseline was the same runs, else from the
// repetitions (none when they were pruned).
std::optional<std::pair<double, double>> rank_test(const Prepared& p, std::size_t position,
                                                   const std::vector<std::size_t>& baseline,
                                                   const std::string& signature, Judging& j) {
  if (j.stored != nullptr) {
    const auto it = j.stored->find(p.run(position));
    if (it != j.stored->end() && it->second.baseline_runs == signature) {
      return std::make_pair(it->second.p_value, it->second.resolution);
    }
  }
  const std::vector<double>& samples = j.samples->of(p.run(position));
  std::vector<double> baseline_samples;
  for (const std::size_t b : baseline) {
    const std::vector<double>& s = j.samples->of(p.run(b));
    baseline_samples.insert(baseline_samples.end(), s.begin(), s.end());
  }
  if (samples.empty() || baseline_samples.empty()) return std::nullopt;
  const RankTest rank = mann_whitney(samples, baseline_samples);
  std::vector<double> all = samples;
  all.insert(all.end(), baseline_samples.begin(), baseline_samples.end());
  return std::make_pair(rank.p_value, resolution(all));
}

std::optional<JudgedRun> judge(const Prepared& p, std::size_t position, const Context& c,
                               Judging& j) {
  std::size_t start = 0;
  for (const ChangePoint& change : p.changes) {
    if (change.index < position) start = std::max(start, change.index);
  }
  for (const std::size_t jump : p.jumps) {
    if (jump < position) start = std::max(start, jump);
  }
  const std::size_t runs = c.options->baseline_runs;
  if (position > runs) start = std::max(start, position - runs);
  if (start >= position) return std::nullopt;  // nothing to compare with
  const NoiseEstimate noise = noise_at(p, position, *j.groups, c);
  if (!noise.known()) return std::nullopt;
  const std::int64_t target = p.run(position);
  std::vector<std::size_t> baseline;
  std::string signature;
  double mean_level = 0.0;
  for (std::size_t b = start; b < position; ++b) {
    // Only runs in the target's machine state (both typical may still differ a little).
    if (!same_state(c.states.at(p.run(b)).canary_ns, c.states.at(target).canary_ns)) continue;
    baseline.push_back(b);
    if (!signature.empty()) signature += ',';
    signature += std::to_string(p.run(b));
    mean_level += p.level[b];
  }
  if (baseline.empty()) return std::nullopt;
  mean_level /= static_cast<double>(baseline.size());
  const auto test = rank_test(p, position, baseline, signature, j);
  if (!test) return std::nullopt;
  JudgedRun out;
  out.series = p.history->series;
  out.threads = p.history->threads;
  out.run = target;
  out.baseline_runs = signature;
  out.baseline = static_cast<std::int64_t>(position - start);
  out.before = std::exp(mean_level);
  out.after = p.history->points[p.normal[position]].median;
  out.effect = p.level[position] - mean_level;
  out.noise_variance = noise.variance;
  out.noise_dof = noise.dof;
  out.p_value = test->first;
  out.resolution = test->second;
  return out;
}

// A judged kernel's floor now, from all of its history and its latest values' resolution.
NoiseRecord kernel_noise(const Prepared& p, const Groups& groups, const Context& c,
                         HistorySamples& samples, std::size_t histories) {
  const RegressionOptions& options = *c.options;
  NoiseRecord n;
  n.series = p.info->id;
  n.threads = p.history->threads;
  n.runs = static_cast<std::int64_t>(p.normal.size());
  // What its latest run was (or would have been) judged with.
  const std::size_t last = p.normal.empty() ? 0 : p.normal.size() - 1;
  const NoiseEstimate noise = last == 0 ? NoiseEstimate{} : noise_at(p, last, groups, c);
  n.sigma = noise.sigma();
  n.floor = detectable_change(noise, std::min(last, options.baseline_runs),
                              std::max<std::size_t>(1, histories), options.significance);
  if (!p.normal.empty() && !std::isnan(n.floor)) {
    const LevelPoint& latest = p.history->points[p.normal.back()];
    n.floor =
        std::max(n.floor, resolution_floor(resolution(samples.of(latest.run)), latest.median));
  }
  return n;
}

std::vector<ShiftRecord> shifts_of(const Prepared& p, std::size_t min_segment) {
  std::vector<ShiftRecord> out;
  for (const LevelShift& s : level_shifts(p.level, p.changes, min_segment)) {
    out.push_back({p.history->series, p.history->threads, p.run(s.first), p.run(s.last), s.drift(),
                   s.before, s.after, s.p_value});
  }
  return out;
}

// Judges one history's runs (dated on or after `from`); fills `d`.
void derive_history(const Prepared& p, const Context& c, const Groups& groups,
                    RepetitionReader& reader, Database& db, const DeriveOptions& how, Derived& d) {
  HistorySamples samples(reader, *p.history);
  std::map<std::int64_t, JudgedRun> stored;
  if (how.reuse_stored) stored = read_judged_history(db, p.history->series, p.history->threads);
  Judging j{&groups, &samples, how.reuse_stored ? &stored : nullptr};
  for (std::size_t i = 0; i < p.normal.size(); ++i) {
    if (date_of(c, p.run(i)) < how.judge_from) continue;
    std::optional<JudgedRun> judged = judge(p, i, c, j);
    if (!judged) continue;
    const auto it = stored.find(judged->run);
    judged->stored = it != stored.end() && it->second == *judged;
    d.judged.push_back(std::move(*judged));
  }
  for (ShiftRecord& s : shifts_of(p, c.options->min_segment)) d.shifts.push_back(s);
  // A kernel's floor is that of its typical state.
  if (!p.faster) {
    d.noise.push_back(kernel_noise(p, groups, c, samples, static_cast<std::size_t>(d.histories)));
  }
}

bool judged_metric(const SeriesInfo& s, const RegressionOptions& options) {
  return options.metrics.empty() || s.metric.empty() ||
         std::find(options.metrics.begin(), options.metrics.end(), s.metric) !=
             options.metrics.end();
}

// The documents of one kernel's models of one class, parsed once each, and the comparisons.
class ChainComparer {
 public:
  ChainComparer(Database& db, const ModelHistory& h, double level, bool reuse_stored)
      : db_(db), level_(level) {
    if (reuse_stored) known_ = read_model_comparisons(db, h.series, h.thread_class);
  }

  ModelComparer comparer() {
    ModelComparer c;
    c.growth = [this](const ModelPoint& established, const ModelPoint& current) {
      const auto key = std::make_pair(ref(current), ref(established));
      if (const auto it = known_.growth.find(key); it != known_.growth.end()) return it->second;
      const GrowthComparison g = compare_growth(model(established), model(current));
      known_.growth[key] = added_.growth[key] = g;
      return g;
    };
    c.interval = [this](const ModelPoint& previous, const ModelPoint& current) {
      const auto key = std::make_tuple(ref(current), ref(previous), level_);
      if (const auto it = known_.interval.find(key); it != known_.interval.end()) {
        return it->second;
      }
      const IntervalComparison i =
          compare_interval(model(previous), model(current), current.largest_threads, level_);
      known_.interval[key] = added_.interval[key] = i;
      return i;
    };
    return c;
  }

  const ModelComparisons& added() const { return added_; }

 private:
  static ModelRef ref(const ModelPoint& m) { return {m.model_set, m.runtime_version}; }

  const modeler::ClassModel& model(const ModelPoint& m) {
    auto it = parsed_.find(ref(m));
    if (it == parsed_.end()) {
      const std::string document = m.document.empty() ? load_model_document(db_, m) : m.document;
      it = parsed_.emplace(ref(m), class_model_from_document(document)).first;
    }
    return it->second;
  }

  Database& db_;
  double level_;
  ModelComparisons known_, added_;
  std::map<ModelRef, modeler::ClassModel> parsed_;
};

void derive_models(Database& db, const std::map<std::int64_t, SeriesInfo>& series,
                   const RegressionOptions& options, const DeriveOptions& how, Derivation& out) {
  std::map<std::pair<std::int64_t, int>, double> floors;
  for (const NoiseRecord& n : out.derived.noise) floors[{n.series, n.threads}] = n.floor;
  ModelCheckOptions model_options;
  model_options.threshold = options.threshold;
  model_options.interval_level = options.interval_level;
  model_options.noise_floor = [&](std::int64_t s, int threads) {
    const auto it = floors.find({s, threads});
    return it == floors.end() ? std::nan("") : it->second;
  };
  for (const ModelHistory& h : load_model_histories(db, false)) {
    if (!judged_metric(series.at(h.series), options)) continue;
    ChainComparer chain(db, h, options.interval_level, how.reuse_stored);
    for (const Finding& f :
         model_findings(std::span(&h, 1), series, model_options, chain.comparer())) {
      out.derived.model_findings.push_back({f.model_set, f.series, f.thread_class,
                                            std::string(to_string(f.kind)), f.worse, f.severity,
                                            f.threads, f.before, f.after, f.change, f.noise_floor,
                                            f.threshold, f.detail, f.date, f.label, f.run_id});
    }
    if (!chain.added().growth.empty() || !chain.added().interval.empty()) {
      out.new_comparisons[{h.series, h.thread_class}] = chain.added();
    }
  }
}

}  // namespace

std::string options_key(const RegressionOptions& o) {
  const nlohmann::json key = {
      {"threshold", o.threshold},         {"significance", o.significance},
      {"baseline_runs", o.baseline_runs}, {"metrics", o.metrics},
      {"min_segment", o.min_segment},     {"interval_level", o.interval_level}};
  return key.dump();
}

RegressionOptions stored_options(Database& db) {
  RegressionOptions o;
  const auto stamp = read_derived_stamp(db);
  if (!stamp) return o;
  const nlohmann::json key = nlohmann::json::parse(stamp->options);
  o.threshold = key.value("threshold", o.threshold);
  o.significance = key.value("significance", o.significance);
  o.baseline_runs = key.value("baseline_runs", o.baseline_runs);
  o.metrics = key.value("metrics", o.metrics);
  o.min_segment = key.value("min_segment", o.min_segment);
  o.interval_level = key.value("interval_level", o.interval_level);
  return o;
}

bool derivation_current(Database& db, const RegressionOptions& options) {
  const auto stamp = read_derived_stamp(db);
  return stamp && stamp->options == options_key(options) &&
         stamp->history == history_fingerprint(db);
}

Derivation derive(Database& db, const RegressionOptions& options, const DeriveOptions& how) {
  Derivation out;
  Derived& d = out.derived;
  d.options = options_key(options);
  d.history = history_fingerprint(db);
  const std::vector<RunInfo> runs = list_runs(db);
  Context c;
  c.options = &options;
  for (const RunInfo& r : runs) c.runs[r.id] = &r;
  c.states = run_states(runs);
  std::map<std::int64_t, SeriesInfo> series;
  for (SeriesInfo& s : list_series(db)) series.emplace(s.id, std::move(s));
  const std::vector<LevelHistory> histories = load_levels(db, options.metrics);
  d.histories = static_cast<std::int64_t>(histories.size());
  ChangePointOptions cp;
  cp.min_segment = options.min_segment;
  cp.min_change = std::log1p(options.threshold);
  cp.significance =
      options.significance / static_cast<double>(std::max<std::size_t>(1, histories.size()));
  std::vector<Prepared> prepared;
  prepared.reserve(histories.size());
  for (const LevelHistory& h : histories) {
    prepared.push_back(prepare(series.at(h.series), h, cp, c, false));
    // Runs of a faster machine state: a history of their own, when there are any.
    Prepared faster = prepare(series.at(h.series), h, cp, c, true);
    if (!faster.normal.empty()) prepared.push_back(std::move(faster));
  }
  const Groups groups = group_noise(prepared, c);
  RepetitionReader reader(db);
  for (const Prepared& p : prepared) derive_history(p, c, groups, reader, db, how, d);
  derive_models(db, series, options, how, out);
  return out;
}

void store_derivation(Database& db, const RegressionOptions& options, const std::string& now) {
  const Derivation d = derive(db, options);
  write_derived(db, d.derived, now);
  for (const auto& [key, comparisons] : d.new_comparisons) {
    write_model_comparisons(db, key.first, key.second, comparisons);
  }
}

}  // namespace ompscale::dashboard

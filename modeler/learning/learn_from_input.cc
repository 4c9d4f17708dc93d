#include "modeler/learning/learn_from_input.h"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "common/statistics.h"
#include "modeler/fit.h"
#include "modeler/learning/backtests.h"
#include "modeler/multi/multi_fit.h"
#include "modeler/prediction/predict.h"

namespace ompscale::modeler {

namespace {

// The change-of-law allowance is searched in [0, kMaxLawChange] per doubling.
constexpr double kMaxLawChange = 1.0;
// A challenger must lower the mean log error by at least this much to replace the options' own
// way: a tenth of a percent, below which two ways predict alike (exact laws, rounding).
constexpr double kMinGain = 1e-3;

std::string aggregation_name(Aggregation a) {
  switch (a) {
    case Aggregation::kMean:
      return "mean";
    case Aggregation::kMedian:
      return "median";
    case Aggregation::kMin:
      return "min";
    case Aggregation::kMax:
      return "max";
    case Aggregation::kTrimmedMean:
      return "trimmed mean";
  }
  return "?";
}

LearningCandidate candidate(Strategy s, Weighting w, Aggregation a) {
  LearningCandidate c;
  c.strategy = s;
  c.weighting = w;
  c.aggregation = a;
  c.name = s == Strategy::kNoiseAware       ? "noise-aware"
           : s == Strategy::kCrossValidated ? "cross-validated"
                                            : "Extra-P";
  if (s == Strategy::kCrossValidated && w == Weighting::kNoise) c.name += " (noise weights)";
  c.name += ", " + aggregation_name(a);
  return c;
}

/// The ways of modeling learning tries: the options' own first (the choice when the backtests
/// cannot tell), then the noise-aware and cross-validated strategies with the options'
/// aggregation and with the mean.
std::vector<LearningCandidate> candidates_for(const ModelerOptions& o) {
  std::vector<LearningCandidate> out{candidate(o.strategy, o.weighting, o.aggregation)};
  if (!o.learn.strategy || o.strategy == Strategy::kExtrap) return out;
  const std::vector<LearningCandidate> tried{
      candidate(Strategy::kNoiseAware, Weighting::kNoise, o.aggregation),
      candidate(Strategy::kNoiseAware, Weighting::kNoise, Aggregation::kMean),
      candidate(Strategy::kCrossValidated, Weighting::kUniform, o.aggregation),
      candidate(Strategy::kCrossValidated, Weighting::kUniform, Aggregation::kMean),
      candidate(Strategy::kCrossValidated, Weighting::kNoise, o.aggregation)};
  for (const LearningCandidate& c : tried) {
    const bool known = std::any_of(out.begin(), out.end(), [&](const LearningCandidate& k) {
      return k.strategy == c.strategy && k.weighting == c.weighting &&
             k.aggregation == c.aggregation;
    });
    if (!known) out.push_back(c);
  }
  return out;
}

ModelerOptions options_of(ModelerOptions o, const LearningCandidate& c) {
  o.strategy = c.strategy;
  o.weighting = c.weighting;
  o.aggregation = c.aggregation;
  return o;
}

/// What one candidate predicted in one backtest.
struct Outcome {
  std::vector<double> predicted;
  PredictiveDistribution distribution;
};

/// Every candidate's fit of every backtest, in parallel: outcomes[candidate][backtest].
std::vector<std::vector<Outcome>> run_backtests(const std::vector<Backtest>& backtests,
                                                const std::vector<LearningCandidate>& candidates,
                                                const ModelerOptions& options) {
  std::vector<std::vector<Outcome>> out(candidates.size(), std::vector<Outcome>(backtests.size()));
  const auto total = static_cast<std::ptrdiff_t>(candidates.size() * backtests.size());
  const int threads = options.threads > 0 ? options.threads : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (std::ptrdiff_t i = 0; i < total; ++i) {
    const auto c = static_cast<std::size_t>(i) / backtests.size();
    const auto b = static_cast<std::size_t>(i) % backtests.size();
    ModelerOptions o = options_of(options, candidates[c]);
    o.predict_at.clear();  // the points alone are scored: no interval searches
    o.budget.reset();
    o.class_mode = ClassMode::kNone;
    const ClassModel m = fit_kernel(backtests[b].training, o).models.front();
    Outcome& outcome = out[c][b];
    outcome.distribution = m.predictive;
    for (double t : backtests[b].t) {
      outcome.predicted.push_back(m.has_model() ? predicted_value(m.predictive, t)
                                                : std::numeric_limits<double>::quiet_NaN());
    }
  }
  return out;
}

/// |log(predicted / measured)|; a miss without a usable ratio counts as a large one.
double log_error(double predicted, double measured) {
  if (predicted > 0.0 && measured > 0.0) return std::fabs(std::log(predicted / measured));
  const double relative = std::fabs(predicted - measured) / std::fabs(measured);
  return std::isfinite(relative) ? std::log1p(relative) : std::log(1e6);
}

double relative_error(double predicted, double measured) {
  const double e = std::fabs(predicted - measured) / std::fabs(measured);
  return std::isfinite(e) ? e : 1e6;
}

/// Each kernel's mean log error under one candidate, kernels in backtest order of first sight.
std::vector<double> kernel_losses(const std::vector<Backtest>& backtests,
                                  const std::vector<Outcome>& outcomes) {
  std::map<std::size_t, std::pair<double, std::size_t>> per_kernel;  // sum, count
  for (std::size_t b = 0; b < backtests.size(); ++b) {
    auto& [sum, count] = per_kernel[backtests[b].kernel];
    for (std::size_t j = 0; j < backtests[b].t.size(); ++j) {
      sum += log_error(outcomes[b].predicted[j], backtests[b].measured[j]);
      ++count;
    }
  }
  std::vector<double> losses;
  for (const auto& [kernel, sum_count] : per_kernel)
    losses.push_back(sum_count.first / static_cast<double>(sum_count.second));
  return losses;
}

void score(const std::vector<Backtest>& backtests, const std::vector<Outcome>& outcomes,
           LearningCandidate& c) {
  c.loss = stats::mean(kernel_losses(backtests, outcomes));
  std::vector<double> errors;
  for (std::size_t b = 0; b < backtests.size(); ++b) {
    for (std::size_t j = 0; j < backtests[b].t.size(); ++j)
      errors.push_back(relative_error(outcomes[b].predicted[j], backtests[b].measured[j]));
  }
  c.median_error = stats::median(errors);
  c.p90_error = stats::quantile(errors, 0.9);
}

/// The candidate that extrapolates best: a challenger replaces the options' own way only when
/// its kernels' losses are lower by more than one standard error of the paired differences
/// (small inputs then keep the options' way instead of following noise), and by kMinGain.
std::size_t choose(const std::vector<Backtest>& backtests,
                   const std::vector<std::vector<Outcome>>& outcomes) {
  const std::vector<double> own = kernel_losses(backtests, outcomes[0]);
  std::size_t best = 0;
  double best_gain = 0.0;
  for (std::size_t c = 1; c < outcomes.size(); ++c) {
    const std::vector<double> other = kernel_losses(backtests, outcomes[c]);
    std::vector<double> gain;
    for (std::size_t k = 0; k < own.size(); ++k) gain.push_back(own[k] - other[k]);
    const double mean = stats::mean(gain);
    const double standard_error = stats::stddev(gain) / std::sqrt(static_cast<double>(gain.size()));
    if (mean > standard_error && mean > kMinGain && mean > best_gain) {
      best = c;
      best_gain = mean;
    }
  }
  return best;
}

/// Whether a backtest calibrates the intervals: it starts from the top of its kernel's range,
/// where a prediction starts.
bool calibrates(const Backtest& b) {
  return b.edge;
}

/// An edge backtest's predictive distribution as the fit that predicts would have it: that fit
/// has one thread count more, hence one residual degree of freedom more. Judged with its own,
/// a fit of three counts (one degree of freedom for two coefficients) has a Student t interval
/// so wide that any measurement falls inside without an allowance, and inputs measured at few
/// thread counts (powers of two) could not calibrate at all.
PredictiveDistribution as_predicting_fit(PredictiveDistribution distribution) {
  for (PredictiveComponent& component : distribution.components) component.dof += 1.0;
  return distribution;
}

std::size_t calibrating_predictions(const std::vector<Backtest>& backtests) {
  std::size_t n = 0;
  for (const Backtest& b : backtests) n += calibrates(b) ? b.t.size() : 0;
  return n;
}

bool inside_with(PredictiveDistribution& distribution, double t, double measured, double law_change,
                 double level);

/// Share of the edge backtests' measurements inside their intervals at `level` when every
/// component allows a change of law of `law_change` per doubling. Only the edge backtests: a
/// prediction starts from the whole measured range, and fits of half of it are less certain
/// than the fit that predicts.
double coverage_with(const std::vector<Backtest>& backtests, std::vector<Outcome>& outcomes,
                     double law_change, double level) {
  std::size_t inside = 0, total = 0;
  for (std::size_t b = 0; b < backtests.size(); ++b) {
    if (!calibrates(backtests[b])) continue;
    PredictiveDistribution distribution = as_predicting_fit(outcomes[b].distribution);
    for (std::size_t j = 0; j < backtests[b].t.size(); ++j) {
      ++total;
      inside +=
          inside_with(distribution, backtests[b].t[j], backtests[b].measured[j], law_change, level);
    }
  }
  return total == 0 ? std::numeric_limits<double>::quiet_NaN()
                    : static_cast<double>(inside) / static_cast<double>(total);
}

/// Whether `measured` lies inside the central interval at `level` of `distribution` at t when
/// every component allows a change of law of `law_change` per doubling.
bool inside_with(PredictiveDistribution& distribution, double t, double measured, double law_change,
                 double level) {
  if (distribution.components.empty()) return false;
  for (auto& component : distribution.components) component.law_change_sd_relative = law_change;
  const double p = predictive_cdf(distribution, t, measured);
  return p >= (1.0 - level) / 2.0 && p <= (1.0 + level) / 2.0;
}

/// The smallest allowance per doubling (to 1/1024 of kMaxLawChange, by bisection: intervals
/// widen with the allowance) that puts the measurement inside its interval; kMaxLawChange when
/// none does.
double allowance_needed(PredictiveDistribution distribution, double t, double measured,
                        double level) {
  if (inside_with(distribution, t, measured, 0.0, level)) return 0.0;
  if (!inside_with(distribution, t, measured, kMaxLawChange, level)) return kMaxLawChange;
  double low = 0.0, high = kMaxLawChange;
  for (int i = 0; i < 10; ++i) {
    const double mid = 0.5 * (low + high);
    (inside_with(distribution, t, measured, mid, level) ? high : low) = mid;
  }
  return high;
}

/// The allowance per doubling that holds the edge backtests' measurements at `level`: the
/// `level` quantile (interpolated, so a few backtests do not force the widest one) of the
/// allowance each measurement needs to lie inside its interval. Fewer than
/// min_calibration_predictions() edge predictions say too little of an input's own allowance:
/// the prior stays.
void calibrate_law_change(const std::vector<Backtest>& backtests, std::vector<Outcome> outcomes,
                          double level, LearnedExtrapolation& learned) {
  if (calibrating_predictions(backtests) < min_calibration_predictions(level)) {
    learned.coverage = coverage_with(backtests, outcomes, learned.law_change_prior, level);
    return;
  }
  std::vector<double> needed;
  for (std::size_t b = 0; b < backtests.size(); ++b) {
    if (!calibrates(backtests[b])) continue;
    for (std::size_t j = 0; j < backtests[b].t.size(); ++j) {
      needed.push_back(allowance_needed(as_predicting_fit(outcomes[b].distribution),
                                        backtests[b].t[j], backtests[b].measured[j], level));
    }
  }
  learned.law_change_per_doubling = stats::quantile(needed, level);
  learned.coverage = coverage_with(backtests, outcomes, learned.law_change_per_doubling, level);
  learned.law_change_learned = true;
}

std::string range_text(double first, double last) {
  return fmt::format("{:g}..{:g}", first, last);
}

/// The median overshoot per doubling, and the most common backtest's median overshoot in words.
void describe_overshoot(const std::vector<Backtest>& backtests,
                        const std::vector<Outcome>& outcomes, LearnedExtrapolation& learned) {
  std::vector<double> per_doubling;
  std::map<std::pair<std::string, std::string>, std::vector<double>> by_ranges;
  for (std::size_t b = 0; b < backtests.size(); ++b) {
    const Backtest& bt = backtests[b];
    const auto ranges =
        std::make_pair(range_text(bt.training.params().front(), bt.training.params().back()),
                       range_text(bt.t.front(), bt.t.back()));
    for (std::size_t j = 0; j < bt.t.size(); ++j) {
      const double p = outcomes[b].predicted[j];
      if (!(p > 0.0 && bt.measured[j] > 0.0)) continue;
      const double log_ratio = std::log(p / bt.measured[j]);
      per_doubling.push_back(log_ratio / bt.doublings[j]);
      by_ranges[ranges].push_back(log_ratio);
    }
  }
  if (per_doubling.empty()) return;
  learned.overshoot_per_doubling = stats::median(per_doubling);
  const auto common = std::max_element(
      by_ranges.begin(), by_ranges.end(),
      [](const auto& a, const auto& b) { return a.second.size() < b.second.size(); });
  const double ratio = std::exp(stats::median(common->second)) - 1.0;
  learned.example = fmt::format("fits of {} predicted {} {:.0f}% too {} (median of {} predictions)",
                                common->first.first, common->first.second, 100.0 * std::fabs(ratio),
                                ratio >= 0.0 ? "high" : "low", common->second.size());
}

std::size_t kernels_in(const std::vector<Backtest>& backtests) {
  std::vector<std::size_t> kernels;
  for (const Backtest& b : backtests) kernels.push_back(b.kernel);
  std::sort(kernels.begin(), kernels.end());
  return static_cast<std::size_t>(std::unique(kernels.begin(), kernels.end()) - kernels.begin());
}

/// learn_from_input on one parameter: `data` is the input itself, or with several parameters
/// its lines along the first one (`along_lines`, which the words say).
LearnedExtrapolation learn_from_single(const Dataset& data, const ModelerOptions& options,
                                       bool along_lines) {
  LearnedExtrapolation learned;
  learned.along_lines = along_lines;
  learned.law_change_per_doubling = options.law_change_per_doubling;
  learned.law_change_prior = options.law_change_per_doubling;
  learned.candidates = candidates_for(options);
  if (!options.learn.strategy && !options.learn.law_change) {
    learned.reason = "learning from the input is off";
    return learned;
  }
  const std::vector<Backtest> backtests = make_backtests(data);
  learned.kernels = kernels_in(backtests);
  for (const Backtest& b : backtests) learned.predictions += b.t.size();
  if (learned.kernels < kMinLearningKernels) {
    learned.reason = fmt::format(
        "{} {}{} with 4 or more {}: learning needs {}; the defaults (learnt from public "
        "measurements) apply",
        learned.kernels, along_lines ? "line" : "kernel", learned.kernels == 1 ? "" : "s",
        along_lines ? "values of the first parameter" : "thread counts", kMinLearningKernels);
    return learned;
  }
  const auto outcomes = run_backtests(backtests, learned.candidates, options);
  for (std::size_t c = 0; c < learned.candidates.size(); ++c)
    score(backtests, outcomes[c], learned.candidates[c]);
  learned.chosen = options.learn.strategy ? choose(backtests, outcomes) : 0;
  learned.strategy_learned = learned.chosen != 0;
  describe_overshoot(backtests, outcomes[learned.chosen], learned);
  if (options.learn.law_change && options.strategy != Strategy::kExtrap) {
    learned.law_change_tried = true;
    calibrate_law_change(backtests, outcomes[learned.chosen], options.confidence, learned);
  }
  return learned;
}

/// The law over all parameters, fitted on every line's values of the first parameter up to each
/// backtest's training (one fit per kernel and training range), predicting each backtest.
std::vector<Outcome> law_backtests(const Dataset& data, const std::vector<LineOrigin>& origins,
                                   const std::vector<Backtest>& backtests, ModelerOptions options) {
  options.model_each_line = false;
  options.predict_at.clear();
  options.budget.reset();
  options.class_mode = ClassMode::kNone;
  Dataset cuts;  // the data's names, and the kernels cut at each training range
  cuts.parameter = data.parameter;
  cuts.parameters = data.parameters;
  cuts.key_columns = data.key_columns;
  std::map<std::pair<std::size_t, double>, std::size_t> cut_of;  // (kernel, last) -> index
  std::vector<std::size_t> fit_of;                               // per backtest
  for (const Backtest& b : backtests) {
    const std::size_t kernel = origins.at(b.kernel).kernel;
    const auto [it, added] =
        cut_of.try_emplace({kernel, b.training.params().back()}, cuts.kernels.size());
    if (added) {
      const Kernel& whole = data.kernels[kernel];
      const double last = b.training.params().back();
      cuts.kernels.push_back(
          whole.points_where([&](std::size_t i) { return whole.coordinate(i, 0) <= last; }));
    }
    fit_of.push_back(it->second);
  }
  const std::vector<MultiResult> fits = fit_multi_dataset(cuts, options);
  std::vector<Outcome> outcomes(backtests.size());
  for (std::size_t b = 0; b < backtests.size(); ++b) {
    const std::vector<double>& others = origins.at(backtests[b].kernel).others;
    for (double t : backtests[b].t) {
      std::vector<double> x = {t};
      x.insert(x.end(), others.begin(), others.end());
      outcomes[b].predicted.push_back(
          predicted_value(distribution_along_first(fits[fit_of[b]], x), t));
    }
  }
  return outcomes;
}

/// Two parameters: one law over both against each line modeled on its own, on the backtests of
/// the lines along the first parameter, each with what was learnt of the way of modeling. Each
/// line replaces the law only when the kernels' losses (a kernel's lines share one law, so their
/// losses are not independent) are lower by more than their noise; with fewer than
/// kMinLearningKernels kernels to pair, the lines' losses.
void learn_line_way(const Dataset& data, const ModelerOptions& options,
                    LearnedExtrapolation& learned) {
  const std::vector<LineOrigin> origins = line_origins(data);
  std::vector<Backtest> backtests = make_backtests(lines_of_first(data));
  const ModelerOptions fitted = with_learned(options, learned);
  if (kernels_in(backtests) < kMinLearningKernels || fitted.strategy == Strategy::kExtrap) return;
  LearningCandidate law = learned.candidates[learned.chosen], each = law;
  law.name = "one law over both parameters";
  each.name = "each line on its own (" + each.name + ")";
  std::vector<std::vector<Outcome>> outcomes = {law_backtests(data, origins, backtests, fitted),
                                                run_backtests(backtests, {each}, fitted).front()};
  score(backtests, outcomes[0], law);
  score(backtests, outcomes[1], each);
  if (data.kernels.size() >= kMinLearningKernels) {
    for (Backtest& b : backtests) b.kernel = origins.at(b.kernel).kernel;
  }
  learned.line_ways = {law, each};
  learned.line_way = choose(backtests, outcomes);
}

}  // namespace

std::size_t min_calibration_predictions(double level) {
  if (!(level > 0.0 && level < 1.0)) return std::numeric_limits<std::size_t>::max();
  return static_cast<std::size_t>(std::ceil(1.0 / (1.0 - level) - 1e-9));
}

LearnedExtrapolation learn_from_input(const Dataset& data, const ModelerOptions& options) {
  if (data.dimensions() > 2) {
    // Three or more parameters are modeled with Extra-P's method (multi_fit.h): only the
    // intervals' allowance applies.
    ModelerOptions allowance_only = options;
    allowance_only.learn.strategy = false;
    return learn_from_single(lines_of_first(data), allowance_only, true);
  }
  if (data.dimensions() > 1) {
    LearnedExtrapolation learned = learn_from_single(lines_of_first(data), options, true);
    if (options.learn.lines) learn_line_way(data, options, learned);
    return learned;
  }
  return learn_from_single(data, options, false);
}

ModelerOptions with_learned(ModelerOptions options, const LearnedExtrapolation& learned) {
  if (learned.strategy_learned) options = options_of(options, learned.candidates[learned.chosen]);
  if (learned.law_change_learned) {
    options.law_change_per_doubling = learned.law_change_per_doubling;
  }
  if (!learned.line_ways.empty()) options.model_each_line = learned.line_way == 1;
  return options;
}

namespace {

std::string describe_line_ways(const std::vector<LearningCandidate>& ways, std::size_t chosen) {
  const LearningCandidate& law = ways[0];
  const LearningCandidate& each = ways[1];
  if (chosen == 1) {
    return fmt::format(
        "Each line along the first parameter modeled on its own predicts its larger values "
        "better than one law over both parameters (median error {:.1f}%, p90 {:.1f}%; one law "
        "{:.1f}%, {:.1f}%): predictions along a measured line come from its own model, elsewhere "
        "from the law. ",
        100.0 * each.median_error, 100.0 * each.p90_error, 100.0 * law.median_error,
        100.0 * law.p90_error);
  }
  return fmt::format(
      "Each line along the first parameter modeled on its own does not predict its larger values "
      "clearly better than one law over both parameters (median error {:.1f}%, p90 {:.1f}%; each "
      "line {:.1f}%, {:.1f}%): predictions come from the law. ",
      100.0 * law.median_error, 100.0 * law.p90_error, 100.0 * each.median_error,
      100.0 * each.p90_error);
}

}  // namespace

std::string LearnedExtrapolation::describe() const {
  // The way of fitting and the intervals fixed by the user, the lines' choice learnt.
  if (!reason.empty() && !line_ways.empty()) return describe_line_ways(line_ways, line_way);
  if (!reason.empty()) return "Nothing learnt from the input: " + reason + ".";
  const LearningCandidate& c = candidates[chosen];
  std::string text =
      along_lines
          ? fmt::format(
                "Learnt from {} backtests of {} lines along the first parameter (each fitted on "
                "its smaller values, predicting its larger ones): ",
                predictions, kernels)
          : fmt::format(
                "Learnt from {} backtests of {} kernels (each fitted on its "
                "smaller thread counts, predicting its larger ones): ",
                predictions, kernels);
  if (candidates.size() > 1) {
    text += fmt::format("{} extrapolates best on this input (median error {:.1f}%, p90 {:.1f}%",
                        c.name, 100.0 * c.median_error, 100.0 * c.p90_error);
    if (chosen != 0) {
      text += fmt::format("; {} {:.1f}%, {:.1f}%", candidates[0].name,
                          100.0 * candidates[0].median_error, 100.0 * candidates[0].p90_error);
    }
    text += "). ";
  }
  if (!example.empty()) text += "Its " + example + ". ";
  if (!line_ways.empty()) text += describe_line_ways(line_ways, line_way);
  if (law_change_learned) {
    text += fmt::format(
        "Intervals allow a change of law of {:.1f}% per doubling beyond the measured range, the "
        "smallest allowance that holds {:.0f}% of the backtests nearest the top of the range.",
        100.0 * law_change_per_doubling, 100.0 * coverage);

  } else if (law_change_tried && std::isfinite(coverage)) {
    text += fmt::format(
        "Too few backtests reach the top of the range to calibrate the intervals: they allow the "
        "{:.0f}% per doubling learnt from public measurements ({:.0f}% of the backtests inside).",
        100.0 * law_change_prior, 100.0 * coverage);
  } else if (law_change_tried) {
    text += fmt::format(
        "No backtest reaches the top of the range to calibrate the intervals: they allow the "
        "{:.0f}% per doubling learnt from public measurements.",
        100.0 * law_change_prior);
  }
  return text;
}

}  // namespace ompscale::modeler

#include "modeler/fit.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <boost/math/distributions/students_t.hpp>
#include <fmt/format.h>

#include "common/statistics.h"
#include "modeler/least_squares.h"
#include "modeler/predict.h"
#include "modeler/nonlinear.h"
#include "modeler/units.h"

namespace ompscale::modeler {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Pseudo degrees of freedom with which each point's noise estimate is pulled towards the pooled
// one: 5 repetitions say little about their own spread, 100 say a lot.
constexpr double kNoisePriorDof = 30.0;
// Score difference (in units of chi^2) below which two hypotheses count as indistinguishable.
constexpr double kIndistinguishable = 2.0;
// Prior odds against growth: "no term" holds 1/3 of the prior and the hypotheses with a term
// share the rest, so each term shape starts 2 ln(hypotheses / 2) chi^2 units behind the constant
// model. Without it the best of ~38 shapes beats the constant on pure noise a third of the time.
double growth_prior_penalty(std::size_t hypotheses) {
  return 2.0 * std::log(std::max(1.0, static_cast<double>(hypotheses) / 2.0));
}
// Components below this posterior weight are dropped from the predictive mixture.
constexpr double kMinComponentWeight = 0.01;
constexpr std::size_t kMaxComponents = 6;

double aggregate(std::span<const double> reps, Aggregation aggregation) {
  switch (aggregation) {
    case Aggregation::kMean: return stats::mean(reps);
    case Aggregation::kMedian: return stats::median(reps);
    case Aggregation::kMin: return stats::min(reps);
    case Aggregation::kMax: return stats::max(reps);
    case Aggregation::kTrimmedMean: return stats::trimmed_mean(reps, 0.25);
  }
  return stats::mean(reps);
}

/// The points of one kernel (or class) ready for fitting.
struct Points {
  std::vector<double> t;
  std::vector<double> y;
  std::vector<double> sd;  ///< standard deviation of each aggregated value
  std::vector<PointSummary> summary;
  double noise_cv = 0.0;   ///< pooled relative spread of one repetition
  double noise_dof = 0.0;  ///< degrees of freedom behind noise_cv
  double typical_reps = 1.0;
  bool noise_from_repetitions = false;

  std::size_t size() const { return t.size(); }
};

Points summarize(const Kernel& kernel, Aggregation aggregation) {
  Points p;
  double pooled = 0.0;
  std::vector<double> reps_count;
  for (std::size_t i = 0; i < kernel.size(); ++i) {
    const auto reps = kernel.repetitions(i);
    PointSummary s;
    s.param = kernel.param(i);
    s.value = aggregate(reps, aggregation);
    s.min = stats::min(reps);
    s.max = stats::max(reps);
    s.cv = stats::coefficient_of_variation(reps);
    s.repetitions = reps.size();
    p.summary.push_back(s);
    p.t.push_back(s.param);
    p.y.push_back(s.value);
    reps_count.push_back(static_cast<double>(reps.size()));
    if (reps.size() > 1) {
      pooled += static_cast<double>(reps.size() - 1) * s.cv * s.cv;
      p.noise_dof += static_cast<double>(reps.size() - 1);
    }
  }
  p.typical_reps = reps_count.empty() ? 1.0 : stats::median(reps_count);
  p.noise_from_repetitions = p.noise_dof > 0.0 && pooled > 0.0;
  double max_abs = 0.0;
  for (double v : p.y) max_abs = std::max(max_abs, std::fabs(v));
  const double floor = max_abs > 0.0 ? 1e-9 * max_abs : 1e-300;
  if (p.noise_from_repetitions) {
    p.noise_cv = std::sqrt(pooled / p.noise_dof);
    for (std::size_t i = 0; i < p.size(); ++i) {
      const double own_dof = static_cast<double>(p.summary[i].repetitions) - 1.0;
      const double cv2 = (own_dof * p.summary[i].cv * p.summary[i].cv +
                          kNoisePriorDof * p.noise_cv * p.noise_cv) /
                         (own_dof + kNoisePriorDof);
      const double sd = std::sqrt(cv2) * std::fabs(p.y[i]) / std::sqrt(reps_count[i]);
      p.sd.push_back(std::max(sd, floor));
    }
  } else {
    // No repetitions to learn the noise from: relative weights, scale estimated from residuals.
    for (double v : p.y) p.sd.push_back(std::max(std::fabs(v), floor));
  }
  return p;
}

double smape_term(double actual, double predicted) {
  const double denominator = std::fabs(actual) + std::fabs(predicted);
  return denominator == 0.0 ? 0.0 : 200.0 * std::fabs(actual - predicted) / denominator;
}

double total_sum_of_squares(const std::vector<double>& y) {
  const double m = stats::mean(y);
  double tss = 0.0;
  for (double v : y) tss += (v - m) * (v - m);
  return tss;
}

// ---------------------------------------------------------------------------------------------
// Extra-P 4.2.5 preset: reproduces its default single-parameter modeler rule for rule.

struct ExtrapCandidate {
  Model model;
  FitStatistics stats;
};

ExtrapCandidate extrap_constant(const Points& p) {
  ExtrapCandidate c;
  c.model.constant = stats::mean(p.y);
  c.stats.points = p.size();
  for (double v : p.y) {
    c.stats.rss += (v - c.model.constant) * (v - c.model.constant);
    c.stats.smape += smape_term(v, c.model.constant);
  }
  c.stats.smape /= static_cast<double>(p.size());
  c.stats.tss = c.stats.rss;
  c.stats.adjusted_r2 = 1.0;
  c.stats.cv_error = c.stats.smape;
  return c;
}

std::optional<ExtrapCandidate> extrap_hypothesis(const Points& p, std::span<const TermShape> shapes,
                                                 double tss) {
  const std::size_t n = p.size();
  const Eigen::MatrixXd x = design_matrix(p.t, shapes);
  const std::vector<double> unit_weights(n, 1.0);
  ExtrapCandidate c;
  c.stats.points = n;
  c.stats.tss = tss;
  std::vector<double> y_train;
  std::vector<double> w_train(n - 1, 1.0);
  Eigen::MatrixXd x_train(static_cast<Eigen::Index>(n - 1), x.cols());
  for (std::size_t out = 0; out < n; ++out) {
    y_train.clear();
    Eigen::Index row = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (i == out) continue;
      x_train.row(row++) = x.row(static_cast<Eigen::Index>(i));
      y_train.push_back(p.y[i]);
    }
    const LinearFit fold = fit_least_squares(x_train, y_train, w_train);
    if (!fold.ok) return std::nullopt;
    Eigen::VectorXd coefficients = fold.coefficients;
    const double min_train = *std::min_element(y_train.begin(), y_train.end());
    // Extra-P's constant cleaning; against the value itself when the smallest value is 0.
    const double relative = min_train == 0.0 ? coefficients(0) : coefficients(0) / min_train;
    if (std::fabs(relative) < 5e-4) coefficients(0) = 0.0;
    const double predicted = x.row(static_cast<Eigen::Index>(out)).dot(coefficients);
    const double d = p.y[out] - predicted;
    c.stats.rss += d * d;
    c.stats.smape += smape_term(p.y[out], predicted);
  }
  c.stats.smape /= static_cast<double>(n);
  c.stats.cv_error = c.stats.smape;
  const LinearFit all = fit_least_squares(x, p.y, unit_weights);
  if (!all.ok) return std::nullopt;
  c.model = all.model(shapes);
  c.stats.adjusted_r2 =
      1.0 - (c.stats.rss / tss) * static_cast<double>(n - 1) / static_cast<double>(n - 2);
  return c;
}

bool extrap_negligible(const Model& model, const Points& p) {
  for (const Term& term : model.terms) {
    if (term.coefficient == 0.0) return true;
    double largest = 0.0;
    for (std::size_t i = 0; i < p.size(); ++i) {
      largest = std::max(largest, std::fabs(term.coefficient * term.shape.evaluate(p.t[i]) / p.y[i]));
    }
    if (largest < 5e-4) return true;
  }
  return false;
}

ClassModel fit_extrap(const Points& p, const ModelerOptions& options) {
  ExtrapCandidate best = extrap_constant(p);
  if (best.stats.rss != 0.0 && p.size() >= 3) {
    const double tss = best.stats.rss;
    HypothesisSpace space = options.space;
    if (*std::min_element(p.t.begin(), p.t.end()) < 1.0) space = space.without_log_terms();
    for (const auto& shapes : space.hypotheses()) {
      auto candidate = extrap_hypothesis(p, shapes, tss);
      if (!candidate || !std::isfinite(candidate->stats.rss)) continue;
      if (extrap_negligible(candidate->model, p)) continue;
      if (candidate->stats.smape < best.stats.smape) best = std::move(*candidate);
    }
  }
  ClassModel result;
  result.model = best.model;
  result.stats = best.stats;
  return result;
}

// ---------------------------------------------------------------------------------------------
// Default preset: noise-aware selection and model averaging.

struct Candidate {
  std::vector<TermShape> shapes;
  LinearFit fit;
  double chi2 = kInf;       ///< weighted in-sample residual sum of squares
  double loo_chi2 = kInf;   ///< weighted held-out residual sum of squares
  double loo_smape = kInf;  ///< held-out SMAPE (percent)
  double loo_rss = kInf;
  double score = kInf;      ///< lower is better; differences are in chi^2 units
  Model model;
  std::size_t parameters() const { return shapes.size() + 1; }
};

/// The hypotheses of a space and each building block's values at the points. Kernels of one
/// sweep share their thread counts, so the last table is kept per thread: most kernels then need
/// neither pow() nor the hypothesis enumeration.
struct HypothesisTable {
  std::vector<double> t;
  std::vector<TermShape> blocks;  ///< the space's blocks (without log terms when asked)
  bool without_logs = false;
  std::vector<std::vector<TermShape>> hypotheses;
  std::vector<std::size_t> block_of;          ///< for one-term hypotheses: index into blocks
  std::vector<std::vector<double>> columns;  ///< columns[b][i] = blocks[b].evaluate(t[i])
};

const HypothesisTable& hypothesis_table(const std::vector<double>& t, const HypothesisSpace& space,
                                        bool without_logs) {
  thread_local HypothesisTable table;
  thread_local int max_terms = 0;
  if (table.t == t && table.without_logs == without_logs && max_terms == space.max_terms &&
      table.blocks.size() <= space.building_blocks.size()) {
    const HypothesisSpace& reference = space;
    std::vector<TermShape> expected = reference.building_blocks;
    if (without_logs) std::erase_if(expected, [](const TermShape& s) { return s.log_exponent != 0; });
    if (expected == table.blocks) return table;
  }
  const HypothesisSpace used = without_logs ? space.without_log_terms() : space;
  table.t = t;
  table.blocks = used.building_blocks;
  table.without_logs = without_logs;
  max_terms = space.max_terms;
  table.hypotheses = used.hypotheses();
  table.block_of.assign(table.hypotheses.size(), 0);
  for (std::size_t h = 0; h < table.hypotheses.size(); ++h) {
    if (table.hypotheses[h].size() != 1) continue;
    table.block_of[h] = static_cast<std::size_t>(
        std::find(table.blocks.begin(), table.blocks.end(), table.hypotheses[h][0]) -
        table.blocks.begin());
  }
  table.columns.assign(table.blocks.size(), {});
  for (std::size_t b = 0; b < table.blocks.size(); ++b) {
    for (double v : t) table.columns[b].push_back(table.blocks[b].evaluate(v));
  }
  return table;
}

/// `column` holds the term's values at the points when the hypothesis has one term.
Candidate fit_candidate(const Points& p, std::span<const TermShape> shapes,
                        const std::vector<double>& weights, const ModelerOptions& options,
                        const std::vector<double>* column = nullptr) {
  Candidate c;
  c.shapes.assign(shapes.begin(), shapes.end());
  if (column != nullptr && options.loss == Loss::kLeastSquares && options.folds < 2) {
    c.fit = fit_one_term(*column, p.y, weights);
  } else {
    const Eigen::MatrixXd x = design_matrix(p.t, shapes);
    c.fit = options.loss == Loss::kLeastSquares ? fit_least_squares(x, p.y, weights)
                                                 : fit_robust(x, p.y, weights, options.loss);
  }
  if (!c.fit.ok) return c;
  c.model = c.fit.model(shapes);
  c.chi2 = c.fit.weighted_rss;
  const std::size_t n = p.size();
  if (n <= c.parameters()) return c;
  c.loo_chi2 = c.loo_rss = c.loo_smape = 0.0;
  if (options.folds >= 2) {
    const Eigen::MatrixXd x = design_matrix(p.t, shapes);
    // k-fold: refit without each fold (points dealt round-robin so every fold spans the range).
    const auto folds = static_cast<std::size_t>(std::min<int>(options.folds, static_cast<int>(n)));
    for (std::size_t f = 0; f < folds; ++f) {
      std::vector<Eigen::Index> train;
      for (std::size_t i = 0; i < n; ++i) {
        if (i % folds != f) train.push_back(static_cast<Eigen::Index>(i));
      }
      if (train.size() < c.parameters()) return c.loo_chi2 = kInf, c;
      Eigen::MatrixXd xt(static_cast<Eigen::Index>(train.size()), x.cols());
      std::vector<double> yt, wt;
      for (std::size_t r = 0; r < train.size(); ++r) {
        xt.row(static_cast<Eigen::Index>(r)) = x.row(train[r]);
        yt.push_back(p.y[static_cast<std::size_t>(train[r])]);
        wt.push_back(weights[static_cast<std::size_t>(train[r])]);
      }
      const LinearFit fold = fit_least_squares(xt, yt, wt);
      if (!fold.ok) return c.loo_chi2 = kInf, c;
      for (std::size_t i = f; i < n; i += folds) {
        const double predicted = x.row(static_cast<Eigen::Index>(i)).dot(fold.coefficients);
        const double d = p.y[i] - predicted;
        c.loo_chi2 += weights[i] * d * d;
        c.loo_rss += d * d;
        c.loo_smape += smape_term(p.y[i], predicted);
      }
    }
  } else {
    // Leave-one-out in closed form: the held-out residual is e_i / (1 - h_ii).
    for (std::size_t i = 0; i < n; ++i) {
      const double h = c.fit.leverage(static_cast<Eigen::Index>(i));
      if (1.0 - h < 1e-10) return c.loo_chi2 = kInf, c;
      const double d = c.fit.residuals(static_cast<Eigen::Index>(i)) / (1.0 - h);
      c.loo_chi2 += weights[i] * d * d;
      c.loo_rss += d * d;
      c.loo_smape += smape_term(p.y[i], p.y[i] - d);
    }
  }
  c.loo_smape /= static_cast<double>(n);
  return c;
}

FitStatistics describe_fit(const Points& p, const Candidate& c, double tss) {
  FitStatistics s;
  s.points = p.size();
  s.tss = tss;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const double predicted = c.model.evaluate(p.t[i]);
    s.rss += (p.y[i] - predicted) * (p.y[i] - predicted);
    s.smape += smape_term(p.y[i], predicted);
  }
  s.smape /= static_cast<double>(p.size());
  s.cv_error = std::isfinite(c.loo_smape) ? c.loo_smape : s.smape;
  const auto n = static_cast<double>(p.size());
  const auto k = static_cast<double>(c.parameters());
  if (c.shapes.empty() || tss == 0.0) {
    s.adjusted_r2 = 1.0;  // as Extra-P: a constant explains all there is to explain
  } else if (n > k) {
    s.adjusted_r2 = 1.0 - (s.rss / (n - k)) / (tss / (n - 1.0));
  } else {
    s.adjusted_r2 = std::nan("");
  }
  return s;
}

struct SelectionOutcome {
  std::vector<Candidate> candidates;
  std::size_t chosen = 0;
  double noise_scale = 1.0;  ///< variance inflation: reduced chi^2 of the best fit when above 1
  std::vector<double> posterior;
};

SelectionOutcome select_noise_aware(const Points& p, const ModelerOptions& options) {
  SelectionOutcome sel;
  std::vector<double> weights;
  for (double sd : p.sd) weights.push_back(1.0 / (sd * sd));
  sel.candidates.push_back(fit_candidate(p, {}, weights, options));
  if (p.size() >= 3) {
    const bool below_one = *std::min_element(p.t.begin(), p.t.end()) < 1.0;
    const HypothesisTable& table = hypothesis_table(p.t, options.space, below_one);
    for (std::size_t h = 0; h < table.hypotheses.size(); ++h) {
      const auto& shapes = table.hypotheses[h];
      if (shapes.size() + 1 >= p.size()) continue;  // no degree of freedom left to judge it
      const std::vector<double>* column =
          shapes.size() == 1 ? &table.columns[table.block_of[h]] : nullptr;
      Candidate c = fit_candidate(p, shapes, weights, options, column);
      if (c.fit.ok && std::isfinite(c.chi2)) sel.candidates.push_back(std::move(c));
    }
  }
  const auto n = static_cast<double>(p.size());
  // Noise scale: with noise measured from repetitions, inflate it when even the best hypothesis
  // misses the points by more than the noise explains (slow phases shared by all repetitions of
  // a point); without repetitions, the residuals of the best fit are all we know of the noise.
  double best_reduced = kInf;
  for (const Candidate& c : sel.candidates) {
    if (n > static_cast<double>(c.parameters())) {
      best_reduced = std::min(best_reduced, c.chi2 / (n - static_cast<double>(c.parameters())));
    }
  }
  if (!std::isfinite(best_reduced)) best_reduced = 1.0;
  // Without repetitions the weights are relative (1 / y^2): a residual below 1e-9 relative is
  // rounding, not signal, so an exact fit must not make every other hypothesis infinitely worse.
  sel.noise_scale = p.noise_from_repetitions ? std::max(1.0, best_reduced)
                                             : std::max(best_reduced, 1e-18);
  const double bic_penalty = std::log(std::max(n, 2.0));
  const double growth_penalty = growth_prior_penalty(sel.candidates.size() - 1);
  auto information = [&](const Candidate& c) {
    return c.chi2 / sel.noise_scale + bic_penalty * static_cast<double>(c.parameters()) +
           (c.shapes.empty() ? 0.0 : growth_penalty);
  };
  for (Candidate& c : sel.candidates) {
    switch (options.selection) {
      case Selection::kNoiseAware:
        c.score = information(c);
        break;
      case Selection::kSmape: c.score = c.loo_smape; break;
      case Selection::kRss: c.score = c.loo_rss; break;
    }
    if (!std::isfinite(c.score)) c.score = kInf;
  }
  // The constant model has no held-out error when n <= 1; keep it as the fallback.
  if (!std::isfinite(sel.candidates[0].score)) sel.candidates[0].score = 1e300;
  sel.chosen = 0;
  for (std::size_t i = 1; i < sel.candidates.size(); ++i) {
    if (sel.candidates[i].score < sel.candidates[sel.chosen].score) sel.chosen = i;
  }
  // Posterior weights for model averaging (BIC approximation to the evidence).
  sel.posterior.assign(sel.candidates.size(), 0.0);
  double total = 0.0;
  for (std::size_t i = 0; i < sel.candidates.size(); ++i) {
    const Candidate& c = sel.candidates[i];
    const double ic = information(c);
    sel.posterior[i] = std::isfinite(ic) && std::isfinite(c.score) ? ic : kInf;
  }
  const double best_ic = *std::min_element(sel.posterior.begin(), sel.posterior.end());
  for (double& w : sel.posterior) {
    w = std::isfinite(w) ? std::exp(-(w - best_ic) / 2.0) : 0.0;
    total += w;
  }
  if (!(total > 0.0) || !std::isfinite(total)) {
    // No hypothesis has a finite score (e.g. one point): all belief on the chosen one.
    std::fill(sel.posterior.begin(), sel.posterior.end(), 0.0);
    sel.posterior[sel.chosen] = 1.0;
    return sel;
  }
  for (double& w : sel.posterior) w /= total;
  return sel;
}

PredictiveComponent make_component(const Points& p, const Candidate& c, double weight,
                                   double noise_scale) {
  PredictiveComponent component;
  component.weight = weight;
  component.model = c.model;
  const Eigen::MatrixXd cov = c.fit.inverse_normal * noise_scale;
  component.covariance.assign(cov.data(), cov.data() + cov.size());  // symmetric: order moot
  const double residual_dof = static_cast<double>(p.size()) - static_cast<double>(c.parameters());
  component.dof = std::max(1.0, p.noise_from_repetitions ? p.noise_dof : residual_dof);
  component.noise_sd_relative =
      p.noise_from_repetitions ? p.noise_cv * std::sqrt(noise_scale / p.typical_reps)
                               : std::sqrt(noise_scale);
  return component;
}

/// Frees the chosen model's exponents (Ceres). The refined model replaces the chosen one only
/// when its leave-one-out weighted error, refitted per fold, is lower.
void refine_chosen(const Points& p, const Candidate& chosen, ClassModel& result) {
  std::vector<double> weights;
  for (double sd : p.sd) weights.push_back(1.0 / (sd * sd));
  const RefinedFit refined = refine_exponents(chosen.model, p.t, p.y, weights);
  if (!refined.ok || p.size() < chosen.parameters() + chosen.shapes.size() + 1) return;
  double held_out = 0.0;
  for (std::size_t out = 0; out < p.size(); ++out) {
    std::vector<double> t, y, w;
    for (std::size_t i = 0; i < p.size(); ++i) {
      if (i == out) continue;
      t.push_back(p.t[i]);
      y.push_back(p.y[i]);
      w.push_back(weights[i]);
    }
    const RefinedFit fold = refine_exponents(refined.model, t, y, w);
    if (!fold.ok) return;
    const double d = p.y[out] - fold.model.evaluate(p.t[out]);
    held_out += weights[out] * d * d;
  }
  if (!(held_out < chosen.loo_chi2)) {
    result.warnings.push_back(fmt::format(
        "refined exponents not kept: held-out error {:.3g} is not below {:.3g}", held_out,
        chosen.loo_chi2));
    return;
  }
  const FitStatistics before = result.stats;
  Candidate refined_candidate = chosen;
  refined_candidate.model = refined.model;
  refined_candidate.loo_smape = before.cv_error;
  result.model = refined.model;
  result.stats = describe_fit(p, refined_candidate, before.tss);
  // Predictions follow the refined model; its coefficient covariance is the rational model's
  // (the exponent's own uncertainty is not propagated).
  PredictiveComponent component = result.predictive.components.front();
  for (const auto& c : result.predictive.components) {
    if (c.model.terms.size() == chosen.model.terms.size() && c.model.constant == chosen.model.constant) {
      component = c;
    }
  }
  component.model = refined.model;
  component.weight = 1.0;
  result.predictive.components = {component};
  result.warnings.push_back(fmt::format(
      "exponents refined (held-out error {:.3g} against {:.3g} for the rational exponents)",
      held_out, chosen.loo_chi2));
}

ClassModel fit_default(const Points& p, const ModelerOptions& options) {
  const SelectionOutcome sel = select_noise_aware(p, options);
  const Candidate& chosen = sel.candidates[sel.chosen];
  ClassModel result;
  result.model = chosen.model;
  result.stats = describe_fit(p, chosen, total_sum_of_squares(p.y));

  // Predictive mixture: the chosen model always, the plausible alternatives by posterior weight.
  std::vector<std::size_t> order(sel.candidates.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return sel.posterior[a] > sel.posterior[b]; });
  for (std::size_t idx : order) {
    if (result.predictive.components.size() >= kMaxComponents) break;
    if (sel.posterior[idx] < kMinComponentWeight) break;
    result.predictive.components.push_back(
        make_component(p, sel.candidates[idx], sel.posterior[idx], sel.noise_scale));
  }
  if (result.predictive.components.empty()) {
    result.predictive.components.push_back(make_component(p, chosen, 1.0, sel.noise_scale));
  }
  double total = 0.0;
  for (const auto& c : result.predictive.components) total += c.weight;
  for (auto& c : result.predictive.components) c.weight /= total;

  // Confidence intervals of the chosen model's coefficients.
  const PredictiveComponent own = make_component(p, chosen, 1.0, sel.noise_scale);
  using Policy = boost::math::policies::policy<boost::math::policies::promote_double<false>>;
  const boost::math::students_t_distribution<double, Policy> student(own.dof);
  const double q =
      boost::math::quantile(boost::math::complement(student, (1.0 - options.confidence) / 2));
  const Eigen::Index k = static_cast<Eigen::Index>(chosen.parameters());
  for (Eigen::Index i = 0; i < k; ++i) {
    const double coefficient = chosen.fit.coefficients(i);
    const double half = q * std::sqrt(std::max(0.0, own.covariance[static_cast<std::size_t>(i * k + i)]));
    result.coefficient_intervals.push_back({coefficient - half, coefficient + half});
  }

  if (options.refine_exponents && !chosen.shapes.empty()) refine_chosen(p, chosen, result);

  // Competing hypotheses of another growth class that the noise cannot rule out.
  const GrowthClass growth = chosen.model.growth();
  for (std::size_t i = 0; i < sel.candidates.size(); ++i) {
    const Candidate& c = sel.candidates[i];
    if (i == sel.chosen || !std::isfinite(c.score) || c.model.growth() == growth) continue;
    if (options.selection == Selection::kNoiseAware &&
        c.score - chosen.score < kIndistinguishable) {
      result.noise_dominates = true;
      result.warnings.push_back(fmt::format(
          "noise (cv {:.1f}%) is larger than the difference between {} and {}: more repetitions or "
          "thread counts would tell them apart",
          100.0 * p.noise_cv, chosen.model.to_string(options.parameter),
          c.model.to_string(options.parameter)));
      break;
    }
  }
  return result;
}

// ---------------------------------------------------------------------------------------------

/// Fits one set of points with the configured method, then adds everything derived from the model.
ClassModel fit_points(const Points& p, const ModelerOptions& options,
                      const std::optional<BudgetSpec>& budget) {
  ClassModel result = options.extrap_compatible ? fit_extrap(p, options) : fit_default(p, options);
  result.points = p.summary;
  if (options.extrap_compatible) {
    // Extra-P gives no intervals; a single-component distribution still serves predictions.
    PredictiveComponent only;
    only.model = result.model;
    only.covariance.assign((result.model.terms.size() + 1) * (result.model.terms.size() + 1), 0.0);
    result.predictive.components.push_back(std::move(only));
  }
  result.growth = result.model.growth();
  result.valid = std::isfinite(result.stats.adjusted_r2) &&
                 result.stats.adjusted_r2 >= options.valid_adjusted_r2;
  result.worse_than_log = result.valid && result.model.grows_faster_than_log();
  if (p.size() < 3) {
    result.warnings.push_back(
        fmt::format("only {} thread count(s): constant model; measure at least 3", p.size()));
  }
  for (double t : options.predict_at) {
    result.predictions.push_back(predict(result.predictive, t, options.confidence));
  }
  if (budget) {
    const double absolute = budget->relative ? budget->value * p.y.front() : budget->value;
    result.budget = find_budget_crossing(result.predictive, absolute, options.confidence,
                                         p.t.front(), options.budget_search_limit);
  }
  return result;
}

/// Held-out weighted error of a fitted class model, for comparing class partitions.
double held_out_error(const Points& p, const ModelerOptions& options) {
  const SelectionOutcome sel = select_noise_aware(p, options);
  const Candidate& c = sel.candidates[sel.chosen];
  return std::isfinite(c.loo_chi2) ? c.loo_chi2 : kInf;
}

Points subset(const Points& all, const std::vector<std::size_t>& indices) {
  Points p = all;
  p.t.clear();
  p.y.clear();
  p.sd.clear();
  p.summary.clear();
  for (std::size_t i : indices) {
    p.t.push_back(all.t[i]);
    p.y.push_back(all.y[i]);
    p.sd.push_back(all.sd[i]);
    p.summary.push_back(all.summary[i]);
  }
  return p;
}

using Partition = std::vector<std::pair<std::string, std::vector<std::size_t>>>;

Partition partition_by(const Points& p, const std::vector<platforms::ThreadClass>& classes) {
  Partition parts;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const double t = p.t[i];
    std::string name = "other";
    if (t == std::round(t) && t >= 1.0) {
      if (auto c = platforms::classify(static_cast<int>(t), classes)) name = *c;
    }
    auto it = std::find_if(parts.begin(), parts.end(), [&](const auto& e) { return e.first == name; });
    if (it == parts.end()) {
      parts.push_back({name, {i}});
    } else {
      it->second.push_back(i);
    }
  }
  return parts;
}

std::string describe_partition(const Partition& parts) {
  std::vector<std::string> names;
  for (const auto& [name, idx] : parts) names.push_back(fmt::format("{} ({} points)", name, idx.size()));
  return fmt::format("{}", fmt::join(names, " | "));
}

KernelResult fit_kernel_with_budget(const Kernel& kernel, const ModelerOptions& options,
                                    const std::optional<BudgetSpec>& budget) {
  KernelResult result;
  const Points all = summarize(kernel, options.aggregation);
  if (all.size() == 0) return result;
  auto fit_partition = [&](const Partition& parts) {
    for (const auto& [name, indices] : parts) {
      ClassModel m = fit_points(subset(all, indices), options, budget);
      m.thread_class = name;
      result.models.push_back(std::move(m));
    }
  };
  switch (options.class_mode) {
    case ClassMode::kNone:
      result.models.push_back(fit_points(all, options, budget));
      break;
    case ClassMode::kList:
      fit_partition(partition_by(all, options.classes));
      break;
    case ClassMode::kAuto: {
      // Candidate partitions: the full one, and each class against the rest. A split is kept
      // only when its held-out error, penalised per extra model (BIC), beats one model.
      std::vector<Partition> candidates;
      const Partition full = partition_by(all, options.classes);
      if (full.size() > 1) candidates.push_back(full);
      for (const auto& cls : options.classes) {
        const Partition two = partition_by(all, {cls});
        if (two.size() == 2 && (full.size() != 2)) candidates.push_back(two);
      }
      const double n = static_cast<double>(all.size());
      // Held-out error as -2 log likelihood: in chi^2 units when the repetitions tell the noise;
      // otherwise the noise is unknown and n log(RSS / n) is the scale-free equivalent.
      auto deviance = [&](double held_out) {
        return all.noise_from_repetitions ? held_out : n * std::log(std::max(held_out, 1e-300) / n);
      };
      const double one_model = deviance(held_out_error(all, options));
      double best_score = one_model;
      const Partition* best = nullptr;
      for (const Partition& parts : candidates) {
        bool modelable = true;
        double held_out = 0.0;
        for (const auto& [name, idx] : parts) {
          if (idx.size() < 4) modelable = false;
          held_out += held_out_error(subset(all, idx), options);
        }
        if (!modelable) continue;
        // Each extra model costs two coefficients (BIC).
        const double score =
            deviance(held_out) + 2.0 * std::log(n) * static_cast<double>(parts.size() - 1);
        if (score < best_score) {
          best_score = score;
          best = &parts;
        }
      }
      if (best != nullptr) {
        result.class_decision = fmt::format(
            "split into {}: held-out error {:.3g} against {:.3g} for one model; these classes "
            "behave differently",
            describe_partition(*best), best_score, one_model);
        fit_partition(*best);
      } else {
        result.class_decision =
            candidates.empty()
                ? "one model: the thread counts fall into a single class"
                : fmt::format("one model: no class split lowers the held-out error ({:.3g}) enough "
                              "to justify extra models (each class needs 4 or more thread counts)",
                              one_model);
        result.models.push_back(fit_points(all, options, budget));
      }
      break;
    }
  }
  return result;
}

std::optional<BudgetSpec> budget_for_kernel(const Dataset& dataset, const Kernel& kernel,
                                            const std::optional<BudgetSpec>& budget) {
  if (!budget || budget->relative || budget->unit.empty()) return budget;
  const auto it = std::find(dataset.key_columns.begin(), dataset.key_columns.end(), "unit");
  if (it == dataset.key_columns.end()) return budget;
  const auto unit = kernel.key_value(static_cast<std::size_t>(it - dataset.key_columns.begin()));
  BudgetSpec converted = *budget;
  converted.value = convert_time(budget->value, budget->unit, unit);
  converted.unit = std::string(unit);
  return converted;
}

}  // namespace

KernelResult fit_kernel(const Kernel& kernel, const ModelerOptions& options) {
  return fit_kernel_with_budget(kernel, options, options.budget);
}

void fit_dataset(const Dataset& dataset, const ModelerOptions& options, std::size_t chunk,
                 const std::function<void(KernelResult&&)>& sink) {
  // Budgets are converted to each kernel's unit first: errors must not escape the parallel loop.
  std::vector<std::optional<BudgetSpec>> budgets;
  if (options.budget) {
    budgets.reserve(dataset.kernels.size());
    for (const Kernel& kernel : dataset.kernels) {
      budgets.push_back(budget_for_kernel(dataset, kernel, options.budget));
    }
  }
  const std::optional<BudgetSpec> no_budget;
  const int threads = options.threads > 0 ? options.threads : omp_get_max_threads();
  chunk = std::max<std::size_t>(chunk, 1);
  std::vector<KernelResult> results;
  for (std::size_t first = 0; first < dataset.kernels.size(); first += chunk) {
    const std::size_t count = std::min(chunk, dataset.kernels.size() - first);
    results.assign(count, {});
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads)
    for (std::ptrdiff_t i = 0; i < static_cast<std::ptrdiff_t>(count); ++i) {
      const std::size_t k = first + static_cast<std::size_t>(i);
      results[static_cast<std::size_t>(i)] =
          fit_kernel_with_budget(dataset.kernels[k], options,
                                 budgets.empty() ? no_budget : budgets[k]);
      results[static_cast<std::size_t>(i)].kernel = k;
    }
    for (KernelResult& result : results) sink(std::move(result));
  }
}

std::vector<KernelResult> fit_dataset(const Dataset& dataset, const ModelerOptions& options) {
  std::vector<KernelResult> results;
  results.reserve(dataset.kernels.size());
  fit_dataset(dataset, options, dataset.kernels.size(),
              [&](KernelResult&& result) { results.push_back(std::move(result)); });
  return results;
}

}  // namespace ompscale::modeler

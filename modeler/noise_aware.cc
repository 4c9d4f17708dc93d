#include "modeler/noise_aware.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <span>
#include <vector>

#include "modeler/least_squares.h"
#include "modeler/nonlinear.h"

namespace ompscale::modeler {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

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

struct Candidate {
  std::vector<TermShape> shapes;
  LinearFit fit;
  double chi2 = kInf;       ///< weighted in-sample residual sum of squares
  double loo_chi2 = kInf;   ///< weighted held-out residual sum of squares
  double loo_smape = kInf;  ///< held-out SMAPE (percent)
  double loo_rss = kInf;
  double score = kInf;  ///< lower is better; differences are in chi^2 units
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
  std::vector<std::size_t> block_of;         ///< for one-term hypotheses: index into blocks
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
    if (without_logs)
      std::erase_if(expected, [](const TermShape& s) { return s.log_exponent != 0; });
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
  Points points;  ///< the points as fitted: their variance includes the systematic part
  std::vector<Candidate> candidates;
  std::size_t chosen = 0;
  double noise_scale = 1.0;  ///< variance inflation: reduced chi^2 of the best fit when above 1
  std::vector<double> posterior;
};

/// The hypothesis space for these points: the configured one, plus negative exponents when the
/// values fall with the parameter (strong scaling) and the space has none.
HypothesisSpace space_for(const Points& p, const ModelerOptions& options) {
  const auto& blocks = options.space.building_blocks;
  const bool has_negative = std::any_of(blocks.begin(), blocks.end(),
                                        [](const TermShape& s) { return s.exponent < 0.0; });
  if (has_negative || !options.negative_exponents_when_falling) return options.space;
  // Falling: more pairs of points fall than rise (Kendall's tau below zero).
  long balance = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    for (std::size_t j = i + 1; j < p.size(); ++j) {
      if (p.y[j] < p.y[i]) --balance;
      if (p.y[j] > p.y[i]) ++balance;
    }
  }
  return balance < 0 ? options.space.with_negative_exponents() : options.space;
}

/// Fits every hypothesis of `space` against the points' variances and scores them.
SelectionOutcome score_hypotheses(const Points& p, const HypothesisSpace& space,
                                  const ModelerOptions& options) {
  SelectionOutcome sel;
  sel.points = p;
  const std::vector<double> weights = p.weights();
  sel.candidates.push_back(fit_candidate(p, {}, weights, options));
  if (p.size() >= 3) {
    const bool below_one = *std::min_element(p.t.begin(), p.t.end()) < 1.0;
    const HypothesisTable& table = hypothesis_table(p.t, space, below_one);
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
  // misses the points by more than the noise explains; without repetitions, the residuals of
  // the best fit are all we know of the noise.
  double best_reduced = kInf;
  for (const Candidate& c : sel.candidates) {
    if (n > static_cast<double>(c.parameters())) {
      best_reduced = std::min(best_reduced, c.chi2 / (n - static_cast<double>(c.parameters())));
    }
  }
  if (!std::isfinite(best_reduced)) best_reduced = 1.0;
  // Without repetitions the weights are relative (1 / y^2): a residual below 1e-9 relative is
  // rounding, not signal, so an exact fit must not make every other hypothesis infinitely worse.
  sel.noise_scale =
      p.noise_from_repetitions ? std::max(1.0, best_reduced) : std::max(best_reduced, 1e-18);
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
      case Selection::kSmape:
        c.score = c.loo_smape;
        break;
      case Selection::kRss:
        c.score = c.loo_rss;
        break;
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

/// Relative variance s^2 of the deviations every repetition of a point shares (placement, slow
/// phases): the s^2 >= 0 at which the model's weighted residuals match their degrees of freedom,
/// sum r_i^2 / (sd_i^2 + s^2 y_i^2) = n - p (method of moments). 0 when the repetitions explain
/// the residuals.
double systematic_variance(const Points& p, const Candidate& c) {
  const auto n = static_cast<double>(p.size());
  const double dof = n - static_cast<double>(c.parameters());
  if (dof < 1.0 || !c.fit.ok) return 0.0;
  auto excess = [&](double s2) {
    double chi2 = 0.0;
    for (std::size_t i = 0; i < p.size(); ++i) {
      const double r = c.fit.residuals(static_cast<Eigen::Index>(i));
      chi2 += r * r / (p.sd[i] * p.sd[i] + s2 * p.y[i] * p.y[i]);
    }
    return chi2 - dof;
  };
  if (!(excess(0.0) > 0.0)) return 0.0;
  double low = 0.0, high = 1e-4;
  while (excess(high) > 0.0 && high < 1e6) high *= 10.0;
  for (int i = 0; i < 60 && high - low > 1e-6 * high; ++i) {
    const double mid = 0.5 * (low + high);
    (excess(mid) > 0.0 ? low : high) = mid;
  }
  return high;
}

/// The points with the systematic variance s2 added to each point's variance.
Points with_systematic(const Points& p, double s2) {
  Points q = p;
  q.systematic = s2;
  for (std::size_t i = 0; i < q.size(); ++i) {
    q.sd[i] = std::sqrt(p.sd[i] * p.sd[i] + s2 * p.y[i] * p.y[i]);
  }
  return q;
}

bool estimates_systematic(const Points& p, const ModelerOptions& options) {
  return options.selection == Selection::kNoiseAware && p.noise_from_repetitions &&
         !std::getenv("NOSYS");
}

/// Scores the hypotheses; with repetitions, estimates the systematic variance from the chosen
/// model's residuals, adds it to the points' variance and scores again (repetitions understate
/// the uncertainty of a point when all of them share a deviation).
SelectionOutcome select_noise_aware(const Points& p, const ModelerOptions& options) {
  const HypothesisSpace space = space_for(p, options);
  SelectionOutcome first = score_hypotheses(p, space, options);
  if (!estimates_systematic(p, options)) return first;
  const double s2 = systematic_variance(p, first.candidates[first.chosen]);
  if (!(s2 > 0.0)) return first;
  return score_hypotheses(with_systematic(p, s2), space, options);
}

/// Relative variance of one new aggregated measurement (before the noise scale).
double relative_noise_variance(const Points& p) {
  return p.noise_from_repetitions ? p.noise_cv * p.noise_cv / p.typical_reps + p.systematic : 1.0;
}

PredictiveComponent make_component(const Points& p, const Candidate& c, double weight,
                                   double noise_scale) {
  PredictiveComponent component;
  component.weight = weight;
  component.model = c.model;
  const Eigen::MatrixXd cov = c.fit.inverse_normal * noise_scale;
  component.covariance.assign(cov.data(), cov.data() + cov.size());  // symmetric: order moot
  const double residual_dof = static_cast<double>(p.size()) - static_cast<double>(c.parameters());
  // The noise is known as well as the repetitions tell it, unless the residuals had to add to it.
  const bool from_residuals = !p.noise_from_repetitions || p.systematic > 0.0 || noise_scale > 1.0;
  component.dof = std::max(1.0, from_residuals ? residual_dof : p.noise_dof);
  component.noise_sd_relative = std::sqrt(noise_scale * relative_noise_variance(p));
  component.range_low = p.t.front();
  component.range_high = p.t.back();
  return component;
}

/// Model-form uncertainty per doubling of extrapolation (docs/methods.md, "Intervals"): the
/// hypothesis is fitted to the smaller parameter values only and predicts the larger ones
/// (forward validation from every origin that leaves the fit a degree of freedom). Returns the
/// relative standard deviation per doubling of distance that the squared relative errors show
/// beyond the predictive variance of those fits.
double forward_drift(const Points& p, const Candidate& c, double noise_scale) {
  const std::size_t n = p.size();
  const std::size_t first_origin = c.parameters() + 1;
  if (n <= first_origin || std::getenv("NODRIFT")) return 0.0;
  const std::vector<double> weights = p.weights();
  const Eigen::MatrixXd x = design_matrix(p.t, c.shapes);
  const double noise = noise_scale * relative_noise_variance(p);
  double excess = 0.0, spread = 0.0;
  for (std::size_t k = first_origin; k < n; ++k) {
    const auto rows = static_cast<Eigen::Index>(k);
    const LinearFit fold =
        fit_least_squares(x.topRows(rows), std::span(p.y).first(k), std::span(weights).first(k));
    if (!fold.ok) continue;
    for (std::size_t j = k; j < n; ++j) {
      const Eigen::VectorXd xj = x.row(static_cast<Eigen::Index>(j)).transpose();
      const double f = xj.dot(fold.coefficients);
      if (f == 0.0) continue;
      const double variance = noise_scale * xj.dot(fold.inverse_normal * xj) + noise * f * f;
      const double e = p.y[j] - f;
      const double doublings = std::log2(p.t[j] / p.t[k - 1]);
      excess += (e * e - variance) / (f * f);
      spread += doublings * doublings;
    }
  }
  return spread > 0.0 && excess > 0.0 ? std::sqrt(excess / spread) : 0.0;
}

/// Frees the chosen model's exponents (Ceres). The refined model replaces the chosen one only
/// when its leave-one-out weighted error, refitted per fold, is lower.
void refine_chosen(const Points& p, const Candidate& chosen, double noise_scale,
                   ClassModel& result) {
  const std::vector<double> weights = p.weights();
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
    result.warnings.push_back(
        fmt::format("refined exponents not kept: held-out error {:.3g} is not below {:.3g}",
                    held_out, chosen.loo_chi2));
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
  PredictiveComponent component = make_component(p, chosen, 1.0, noise_scale);
  component.model = refined.model;
  result.predictive.components = {component};
  result.warnings.push_back(fmt::format(
      "exponents refined (held-out error {:.3g} against {:.3g} for the rational exponents)",
      held_out, chosen.loo_chi2));
}

}  // namespace

ClassModel fit_noise_aware(const Points& measured, const ModelerOptions& options) {
  const SelectionOutcome sel = select_noise_aware(measured, options);
  const Points& p = sel.points;
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
  const double drift = forward_drift(p, chosen, sel.noise_scale);
  for (auto& c : result.predictive.components) {
    c.weight /= total;
    c.drift_sd_relative = drift;
  }

  // Confidence intervals of the chosen model's coefficients.
  const PredictiveComponent own = make_component(p, chosen, 1.0, sel.noise_scale);
  using Policy = boost::math::policies::policy<boost::math::policies::promote_double<false>>;
  const boost::math::students_t_distribution<double, Policy> student(own.dof);
  const double q =
      boost::math::quantile(boost::math::complement(student, (1.0 - options.confidence) / 2));
  const Eigen::Index k = static_cast<Eigen::Index>(chosen.parameters());
  for (Eigen::Index i = 0; i < k; ++i) {
    const double coefficient = chosen.fit.coefficients(i);
    const double half =
        q * std::sqrt(std::max(0.0, own.covariance[static_cast<std::size_t>(i * k + i)]));
    result.coefficient_intervals.push_back({coefficient - half, coefficient + half});
  }

  if (options.refine_exponents && !chosen.shapes.empty())
    refine_chosen(p, chosen, sel.noise_scale, result);

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

double systematic_variance(const Points& p, const ModelerOptions& options) {
  if (!estimates_systematic(p, options)) return 0.0;
  const SelectionOutcome first = score_hypotheses(p, space_for(p, options), options);
  return systematic_variance(p, first.candidates[first.chosen]);
}

double held_out_error(const Points& p, const ModelerOptions& options, double systematic) {
  const Points q = systematic > 0.0 ? with_systematic(p, systematic) : p;
  const SelectionOutcome sel = score_hypotheses(q, space_for(q, options), options);
  const Candidate& c = sel.candidates[sel.chosen];
  return std::isfinite(c.loo_chi2) ? c.loo_chi2 : kInf;
}

}  // namespace ompscale::modeler

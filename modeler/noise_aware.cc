#include "modeler/noise_aware.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "modeler/deviations.h"
#include "modeler/least_squares.h"
#include "modeler/nonlinear.h"
#include "modeler/selection.h"

namespace ompscale::modeler {

namespace {

constexpr double kInf = Candidate::kInf;

// Score difference (in units of chi^2) below which two hypotheses count as indistinguishable.
constexpr double kIndistinguishable = 2.0;
// Components below this posterior weight are dropped from the predictive mixture; at most this
// many are kept (a flat posterior over every shape is common on real measurements).
constexpr double kMinComponentWeight = 0.01;
constexpr std::size_t kMaxComponents = 24;

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

/// The predictive mixture: the plausible hypotheses by posterior weight (the chosen one always),
/// each with the model-form uncertainty outside the measured range.
PredictiveDistribution predictive_mixture(const SelectionOutcome& sel,
                                          const ModelerOptions& options) {
  const Points& p = sel.points;
  const Candidate& chosen = sel.candidates[sel.chosen];
  PredictiveDistribution mixture;
  std::vector<std::size_t> order(sel.candidates.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return sel.posterior[a] > sel.posterior[b]; });
  for (std::size_t idx : order) {
    if (mixture.components.size() >= kMaxComponents) break;
    if (sel.posterior[idx] < kMinComponentWeight) break;
    mixture.components.push_back(
        make_component(p, sel.candidates[idx], sel.posterior[idx], sel.noise_scale));
  }
  if (mixture.components.empty()) {
    mixture.components.push_back(make_component(p, chosen, 1.0, sel.noise_scale));
  }
  double total = 0.0;
  for (const auto& c : mixture.components) total += c.weight;
  const double drift = forward_drift(p, chosen, sel.noise_scale);
  const bool positive = std::all_of(p.y.begin(), p.y.end(), [](double v) { return v > 0.0; });
  for (auto& c : mixture.components) {
    c.weight /= total;
    c.drift_sd_relative = drift;
    c.law_change_sd_relative = options.law_change_per_doubling;
    c.positive = positive && options.positive_models;
  }
  return mixture;
}

/// Why two hypotheses of different growth cannot be told apart, and what would tell them apart:
/// more repetitions only help when the noise of the repetitions is what hides the difference.
std::string cannot_tell_apart(const Points& p, const Model& chosen, const Model& rival,
                              std::string_view parameter) {
  const std::string a = chosen.to_string(parameter);
  const std::string b = rival.to_string(parameter);
  const double repetitions = p.noise_cv * p.noise_cv / p.typical_reps;
  if (p.systematic > repetitions) {
    return fmt::format(
        "deviations shared by all repetitions of a thread count ({:.1f}%) are larger than the "
        "difference between {} and {}: more thread counts would tell them apart, more repetitions "
        "would not",
        100.0 * std::sqrt(p.systematic), a, b);
  }
  return fmt::format(
      "noise (cv {:.1f}%) is larger than the difference between {} and {}: more repetitions or "
      "thread counts would tell them apart",
      100.0 * p.noise_cv, a, b);
}

}  // namespace

ClassModel fit_noise_aware(const Points& measured, const ModelerOptions& options) {
  std::optional<std::size_t> left_out;
  const SelectionOutcome sel = select_without_outlier(measured, options, left_out);
  const Points& p = sel.points;
  const Candidate& chosen = sel.candidates[sel.chosen];
  ClassModel result;
  if (left_out) {
    result.warnings.push_back(fmt::format(
        "{}={:g} left out of the fit: it lies more than {:g} predictive standard deviations from "
        "the model the other points follow",
        options.parameter, measured.t[*left_out], kOutlierDeviations));
  }
  result.model = chosen.model;
  result.stats = describe_fit(p, chosen, total_sum_of_squares(p.y));

  result.predictive = predictive_mixture(sel, options);

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
      result.warnings.push_back(cannot_tell_apart(p, chosen.model, c.model, options.parameter));
      break;
    }
  }
  return result;
}

double systematic_variance(const Points& p, const ModelerOptions& options) {
  return select_hypotheses(p, options).points.systematic;
}

double held_out_error(const Points& p, const ModelerOptions& options, double systematic) {
  const Points q = systematic > 0.0 ? with_systematic(p, systematic) : p;
  const SelectionOutcome sel = score_hypotheses(q, space_for(q, options), options);
  const Candidate& c = sel.candidates[sel.chosen];
  return std::isfinite(c.loo_chi2) ? c.loo_chi2 : kInf;
}

}  // namespace ompscale::modeler

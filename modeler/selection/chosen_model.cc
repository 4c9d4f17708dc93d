#include "modeler/selection/chosen_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <vector>

#include "modeler/numerics/nonlinear.h"
#include "modeler/selection/deviations.h"

namespace ompscale::modeler {

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
  component.noise_sd_absolute = std::sqrt(noise_scale * absolute_noise_variance(p));
  component.range_low = p.t.front();
  component.range_high = p.t.back();
  return component;
}

ClassModel describe_chosen(const SelectionOutcome& sel, const ModelerOptions& options) {
  const Points& p = sel.points;
  const Candidate& chosen = sel.candidates[sel.chosen];
  ClassModel result;
  result.model = chosen.model;
  result.stats = describe_fit(p, chosen, total_sum_of_squares(p.y));
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
  return result;
}

void refine_chosen(const SelectionOutcome& sel, ClassModel& result) {
  const Points& p = sel.points;
  const Candidate& chosen = sel.candidates[sel.chosen];
  const double noise_scale = sel.noise_scale;
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

void add_extrapolation_uncertainty(const SelectionOutcome& sel, const ModelerOptions& options,
                                   PredictiveDistribution& distribution) {
  const Points& p = sel.points;
  double total = 0.0;
  for (const auto& c : distribution.components) total += c.weight;
  const double drift = forward_drift(p, sel.candidates[sel.chosen], sel.noise_scale);
  const bool positive = std::all_of(p.y.begin(), p.y.end(), [](double v) { return v > 0.0; });
  for (auto& c : distribution.components) {
    c.weight /= total;
    c.drift_sd_relative = drift;
    c.law_change_sd_relative = options.law_change_per_doubling;
    c.positive = positive && options.positive_models;
  }
}

}  // namespace ompscale::modeler

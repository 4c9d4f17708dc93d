#include "modeler/selection/noise_aware.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "modeler/numerics/least_squares.h"
#include "modeler/selection/chosen_model.h"
#include "modeler/selection/deviations.h"
#include "modeler/selection/selection.h"

namespace ompscale::modeler {

namespace {

// Score difference (in units of chi^2) below which two hypotheses count as indistinguishable.
constexpr double kIndistinguishable = 2.0;
// Components below this posterior weight are dropped from the predictive mixture; at most this
// many are kept (a flat posterior over every shape is common on real measurements).
constexpr double kMinComponentWeight = 0.01;
constexpr std::size_t kMaxComponents = 24;

/// The predictive mixture: the plausible hypotheses by posterior weight (the chosen one always).
PredictiveDistribution predictive_mixture(const SelectionOutcome& sel) {
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
  ClassModel result = describe_chosen(sel, options);
  if (left_out) {
    result.warnings.push_back(fmt::format(
        "{}={:g} left out of the fit: it lies more than {:g} predictive standard deviations from "
        "the model the other points follow",
        options.parameter, measured.t[*left_out], kOutlierDeviations));
  }
  result.predictive = predictive_mixture(sel);
  if (options.refine_exponents && !chosen.shapes.empty()) refine_chosen(sel, result);
  add_extrapolation_uncertainty(sel, options, result.predictive);

  // Competing hypotheses of another growth class that the noise cannot rule out.
  const GrowthClass growth = chosen.model.growth();
  for (std::size_t i = 0; i < sel.candidates.size(); ++i) {
    const Candidate& c = sel.candidates[i];
    if (i == sel.chosen || !std::isfinite(c.score) || c.model.growth() == growth) continue;
    if (c.score - chosen.score < kIndistinguishable) {
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
  return std::isfinite(c.loo_chi2) ? c.loo_chi2 : Candidate::kInf;
}

}  // namespace ompscale::modeler

#include "modeler/selection/deviations.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

#include "modeler/numerics/least_squares.h"

namespace ompscale::modeler {

namespace {

bool estimates_systematic(const Points& p, const ModelerOptions& options) {
  return options.strategy == Strategy::kNoiseAware && p.noise_from_repetitions;
}

/// Deviation of point `i` of `all` from the prediction of `sel` (chosen without it), in
/// predictive standard deviations: coefficient uncertainty, the point's own noise and systematic
/// variance, and the model-form uncertainty of extrapolating to it.
double outlier_deviations(const Points& all, std::size_t i, const SelectionOutcome& sel) {
  const Points& q = sel.points;
  const Candidate& c = sel.candidates[sel.chosen];
  const std::vector<double> ti{all.t[i]};
  const Eigen::VectorXd x = design_matrix(ti, c.shapes).row(0).transpose();
  const double f = x.dot(c.fit.coefficients);
  double variance = sel.noise_scale * x.dot(c.fit.inverse_normal * x);
  variance += sel.noise_scale * (all.sd[i] * all.sd[i] + q.systematic * f * f);
  double doublings = 0.0;
  if (all.t[i] < q.t.front()) doublings = std::log2(q.t.front() / all.t[i]);
  if (all.t[i] > q.t.back()) doublings = std::log2(all.t[i] / q.t.back());
  if (doublings > 0.0) {
    const double drift = forward_drift(q, c, sel.noise_scale) * doublings * f;
    variance += drift * drift;
  }
  return std::fabs(all.y[i] - f) / std::sqrt(std::max(variance, 1e-300));
}

Points without_point(const Points& p, std::size_t i) {
  std::vector<std::size_t> keep;
  for (std::size_t j = 0; j < p.size(); ++j) {
    if (j != i) keep.push_back(j);
  }
  return subset(p, keep);
}

/// The point with the largest standardised held-out residual under the chosen model.
std::pair<std::size_t, double> largest_held_out_residual(const SelectionOutcome& sel) {
  const Candidate& c = sel.candidates[sel.chosen];
  const Points& p = sel.points;
  std::pair<std::size_t, double> worst{0, 0.0};
  for (std::size_t i = 0; i < p.size(); ++i) {
    const auto row = static_cast<Eigen::Index>(i);
    const double h = c.fit.leverage(row);
    const double z = std::fabs(c.fit.residuals(row)) / (p.sd[i] * std::sqrt(sel.noise_scale)) /
                     std::sqrt(std::max(1.0 - h, 1e-12));
    if (z > worst.second) worst = {i, z};
  }
  return worst;
}

}  // namespace

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

Points with_systematic(const Points& p, double s2) {
  Points q = p;
  q.systematic = s2;
  for (std::size_t i = 0; i < q.size(); ++i) {
    q.sd[i] = std::sqrt(p.sd[i] * p.sd[i] + s2 * p.y[i] * p.y[i]);
  }
  return q;
}

SelectionOutcome select_hypotheses(const Points& p, const ModelerOptions& options) {
  const HypothesisSpace space = space_for(p, options);
  SelectionOutcome first = score_hypotheses(p, space, options);
  if (!estimates_systematic(p, options)) return first;
  const double s2 = systematic_variance(p, first.candidates[first.chosen]);
  if (!(s2 > 0.0)) return first;
  return score_hypotheses(with_systematic(p, s2), space, options);
}

SelectionOutcome select_without_outlier(const Points& p, const ModelerOptions& options,
                                        std::optional<std::size_t>& left_out) {
  SelectionOutcome sel = select_hypotheses(p, options);
  // Five points leave four when one goes: a term, a constant and two degrees of freedom.
  if (p.size() < 5 || !estimates_systematic(p, options)) return sel;
  std::vector<std::size_t> candidates;
  if (p.t.front() == 1.0) candidates.push_back(0);
  const auto [worst, worst_z] = largest_held_out_residual(sel);
  if (worst_z > 0.5 * kOutlierDeviations && worst != 0) candidates.push_back(worst);
  double best_z = kOutlierDeviations;
  for (std::size_t i : candidates) {
    SelectionOutcome without = select_hypotheses(without_point(p, i), options);
    const double z = outlier_deviations(p, i, without);
    // The point must also carry most of the scatter the repetitions do not explain: a point
    // that merely continues the others' scatter is not an outlier, however far it lies.
    const bool carries_scatter = without.points.systematic <= 0.25 * sel.points.systematic;
    if (z > best_z && carries_scatter) {
      best_z = z;
      left_out = i;
      sel = std::move(without);
    }
  }
  return sel;
}

double forward_drift(const Points& p, const Candidate& c, double noise_scale) {
  const std::size_t n = p.size();
  // Origins at the edge of the range, where a prediction starts: the last quarter of the points,
  // at least kDriftOrigins of them. A law that bends towards the top of the range still predicts
  // the top well from the middle; from the edge it shows how fast it is going wrong there.
  const std::size_t edge = std::max(kDriftOrigins, n / 4);
  const std::size_t first_origin = std::max(c.parameters() + 1, n > edge ? n - edge : 0);
  if (n <= first_origin) return 0.0;
  // A relative error of the law's form means nothing for values at or around zero (the minimum
  // of a few timer ticks after the overhead is taken off); their residuals carry their scatter.
  if (!std::all_of(p.y.begin(), p.y.end(), [](double v) { return v > 0.0; })) return 0.0;
  const std::vector<double> weights = p.weights();
  const Eigen::MatrixXd x = design_matrix(p.t, c.shapes);
  const double noise = noise_scale * relative_noise_variance(p);
  const double absolute = noise_scale * absolute_noise_variance(p);
  double excess = 0.0, spread = 0.0;
  for (std::size_t k = first_origin; k < n; ++k) {
    const LinearFit fold = fit_least_squares(x.topRows(static_cast<Eigen::Index>(k)),
                                             std::span(p.y).first(k), std::span(weights).first(k));
    if (!fold.ok) continue;
    for (std::size_t j = k; j < n; ++j) {
      const Eigen::VectorXd xj = x.row(static_cast<Eigen::Index>(j)).transpose();
      const double f = xj.dot(fold.coefficients);
      const double variance =
          noise_scale * xj.dot(fold.inverse_normal * xj) + noise * f * f + absolute;
      const double e = p.y[j] - f;
      const double doublings = std::log2(p.t[j] / p.t[k - 1]);
      // Least squares through the origin of (e^2 - variance) / s^2 = drift^2 * doublings^2: the
      // far predictions, where model form shows, weigh most. s is the larger of prediction and
      // measurement: a fold that predicts nearly zero is wrong by about the whole value, not by
      // a ratio without bound.
      const double scale = std::max(std::fabs(f), p.y[j]);
      excess += (e * e - variance) / (scale * scale) * doublings * doublings;
      spread += doublings * doublings * doublings * doublings;
    }
  }
  return spread > 0.0 && excess > 0.0 ? std::sqrt(excess / spread) : 0.0;
}

}  // namespace ompscale::modeler

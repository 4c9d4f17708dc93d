#include "modeler/selection/extrap_preset.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <span>
#include <vector>

#include "common/statistics.h"
#include "modeler/numerics/least_squares.h"

namespace ompscale::modeler {

namespace {

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
      largest =
          std::max(largest, std::fabs(term.coefficient * term.shape.evaluate(p.t[i]) / p.y[i]));
    }
    if (largest < 5e-4) return true;
  }
  return false;
}

}  // namespace

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

}  // namespace ompscale::modeler

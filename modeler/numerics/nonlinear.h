#pragma once
// Fits that least squares cannot do in closed form, solved with Ceres: robust losses that
// down-weight outliers, and exponents refined to continuous values.

#include <span>
#include <vector>

#include "modeler/numerics/least_squares.h"
#include "modeler/presets/options.h"

namespace ompscale::modeler {

/// Minimises sum rho(w_i r_i^2) with a Huber or Cauchy loss whose scale is 1.345 (Huber) or
/// 2.385 (Cauchy) robust standard deviations of the least-squares residuals. The covariance and
/// leverages are those of the final iteratively reweighted problem; weighted_rss holds the
/// robust cost (2 x Ceres' cost), which is what candidates are compared on.
LinearFit fit_robust(const Eigen::MatrixXd& design, std::span<const double> y,
                     std::span<const double> weights, Loss loss);

/// The model with every term's exponent freed, starting from `start`, minimising the weighted
/// squared error. `ok` is false when Ceres does not converge.
struct RefinedFit {
  bool ok = false;
  Model model;
  double weighted_rss = 0.0;
};
RefinedFit refine_exponents(const Model& start, std::span<const double> t,
                            std::span<const double> y, std::span<const double> weights);

}  // namespace ompscale::modeler

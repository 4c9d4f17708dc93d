#pragma once
// Weighted linear least squares for PMNF hypotheses: the design matrix has a column of ones (the
// constant) and one column per term shape evaluated at the points.

#include <Eigen/Dense>
#include <span>
#include <vector>

#include "modeler/core/model.h"

namespace ompscale::modeler {

struct LinearFit {
  bool ok = false;
  // At most 4 coefficients (constant + 3 terms): fixed capacity, no allocation.
  using Coefficients = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 4, 1>;
  using Covariance = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 4, 4>;
  Coefficients coefficients;  ///< constant first, then one per term
  /// (X^T W X)^-1: the coefficients' covariance when the weights are 1 / variance.
  Covariance inverse_normal;
  Eigen::VectorXd leverage;   ///< diagonal of the hat matrix, for closed-form leave-one-out
  Eigen::VectorXd residuals;  ///< y - X c (unweighted)
  double weighted_rss = 0.0;

  Model model(std::span<const TermShape> shapes) const;
};

/// Design matrix [1, shape_1(t), ..., shape_k(t)].
Eigen::MatrixXd design_matrix(std::span<const double> t, std::span<const TermShape> shapes);

/// Weighted least squares for a design [1, x] (constant plus one term), in closed form around
/// the weighted means: an order of magnitude faster than the QR, and what the default preset uses
/// for its one-term hypotheses. (The Extra-P preset keeps the QR: it must agree with numpy's lstsq
/// to the last stable digit.) Into `fit`, whose leverage and residual vectors keep their storage
/// when they already have the points' size: scoring dozens of hypotheses per kernel allocates
/// nothing.
void fit_one_term(std::span<const double> x, std::span<const double> y,
                  std::span<const double> weights, LinearFit& fit);

/// The fit without its per-point vectors (leverage, residuals): what a scored hypothesis keeps.
LinearFit without_point_values(const LinearFit& fit);

/// Minimises sum w_i (y_i - (X c)_i)^2 with a Householder QR of sqrt(W) X. `ok` is false when
/// the design is rank deficient (e.g. a log term at t = 1 only).
LinearFit fit_least_squares(const Eigen::MatrixXd& design, std::span<const double> y,
                            std::span<const double> weights);

}  // namespace ompscale::modeler

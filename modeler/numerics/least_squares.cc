#include "modeler/numerics/least_squares.h"

#include <cmath>

namespace ompscale::modeler {

Model LinearFit::model(std::span<const TermShape> shapes) const {
  Model m;
  m.constant = coefficients(0);
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    m.terms.push_back({coefficients(static_cast<Eigen::Index>(k + 1)), shapes[k]});
  }
  return m;
}

Eigen::MatrixXd design_matrix(std::span<const double> t, std::span<const TermShape> shapes) {
  const auto n = static_cast<Eigen::Index>(t.size());
  Eigen::MatrixXd x(n, static_cast<Eigen::Index>(shapes.size() + 1));
  for (Eigen::Index i = 0; i < n; ++i) {
    x(i, 0) = 1.0;
    for (std::size_t k = 0; k < shapes.size(); ++k) {
      x(i, static_cast<Eigen::Index>(k + 1)) = shapes[k].evaluate(t[static_cast<std::size_t>(i)]);
    }
  }
  return x;
}

LinearFit fit_least_squares(const Eigen::MatrixXd& design, std::span<const double> y,
                            std::span<const double> weights) {
  LinearFit fit;
  const Eigen::Index n = design.rows();
  const Eigen::Index p = design.cols();
  if (n < p) return fit;
  Eigen::VectorXd sqrt_w(n);
  Eigen::VectorXd yw(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    sqrt_w(i) = std::sqrt(weights[static_cast<std::size_t>(i)]);
    yw(i) = sqrt_w(i) * y[static_cast<std::size_t>(i)];
  }
  const Eigen::MatrixXd xw = sqrt_w.asDiagonal() * design;
  // Unpivoted Householder QR: what LAPACK's gelsd (numpy.linalg.lstsq, used by Extra-P) does
  // first for tall matrices, so the Extra-P preset agrees to the last digits that are stable.
  const Eigen::HouseholderQR<Eigen::MatrixXd> qr(xw);
  const Eigen::MatrixXd r = qr.matrixQR().topLeftCorner(p, p).triangularView<Eigen::Upper>();
  const double largest = r.diagonal().cwiseAbs().maxCoeff();
  if (!(largest > 0.0) ||
      r.diagonal().cwiseAbs().minCoeff() <= largest * 1e-12 * static_cast<double>(n)) {
    return fit;  // rank deficient: the hypothesis cannot be told from a simpler one here
  }
  fit.coefficients = qr.solve(yw);
  if (!fit.coefficients.allFinite()) return fit;
  // (X^T W X)^-1 = R^-1 R^-T.
  const Eigen::MatrixXd r_inv =
      r.triangularView<Eigen::Upper>().solve(Eigen::MatrixXd::Identity(p, p));
  fit.inverse_normal = r_inv * r_inv.transpose();
  const Eigen::MatrixXd projected = xw * fit.inverse_normal;
  fit.leverage = (projected.array() * xw.array()).rowwise().sum();
  Eigen::VectorXd y_vec(n);
  for (Eigen::Index i = 0; i < n; ++i) y_vec(i) = y[static_cast<std::size_t>(i)];
  fit.residuals = y_vec - design * fit.coefficients;
  fit.weighted_rss = (fit.residuals.array().square() * sqrt_w.array().square()).sum();
  fit.ok = true;
  return fit;
}

LinearFit without_point_values(const LinearFit& fit) {
  LinearFit summary;
  summary.ok = fit.ok;
  summary.coefficients = fit.coefficients;
  summary.inverse_normal = fit.inverse_normal;
  summary.weighted_rss = fit.weighted_rss;
  return summary;
}

void fit_one_term(std::span<const double> x, std::span<const double> y,
                  std::span<const double> weights, LinearFit& fit) {
  fit.ok = false;
  fit.weighted_rss = 0.0;
  const std::size_t n = x.size();
  if (n < 2) return;
  double sw = 0.0, mx = 0.0, my = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    sw += weights[i];
    mx += weights[i] * x[i];
    my += weights[i] * y[i];
  }
  mx /= sw;
  my /= sw;
  double sxx = 0.0, sxy = 0.0, xx = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double dx = x[i] - mx;
    sxx += weights[i] * dx * dx;
    sxy += weights[i] * dx * (y[i] - my);
    xx += weights[i] * x[i] * x[i];
  }
  // Same rank test as the QR path: the term must not be (nearly) constant over the points.
  if (!(sxx > 1e-24 * xx * static_cast<double>(n) * static_cast<double>(n))) return;
  const double slope = sxy / sxx;
  fit.coefficients.resize(2);
  fit.coefficients << my - slope * mx, slope;
  fit.inverse_normal.resize(2, 2);
  fit.inverse_normal << 1.0 / sw + mx * mx / sxx, -mx / sxx, -mx / sxx, 1.0 / sxx;
  fit.leverage.resize(static_cast<Eigen::Index>(n));
  fit.residuals.resize(static_cast<Eigen::Index>(n));
  for (std::size_t i = 0; i < n; ++i) {
    const auto r = static_cast<Eigen::Index>(i);
    const double dx = x[i] - mx;
    fit.leverage(r) = weights[i] * (1.0 / sw + dx * dx / sxx);
    fit.residuals(r) = y[i] - fit.coefficients(0) - slope * x[i];
    fit.weighted_rss += weights[i] * fit.residuals(r) * fit.residuals(r);
  }
  fit.ok = std::isfinite(slope) && std::isfinite(fit.coefficients(0));
}

}  // namespace ompscale::modeler

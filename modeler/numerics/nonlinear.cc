#include "modeler/numerics/nonlinear.h"

#include <ceres/ceres.h>

#include <algorithm>
#include <cmath>

#include "common/statistics.h"

namespace ompscale::modeler {

namespace {

struct LinearResidual {
  LinearResidual(const double* row, int columns, double y, double sqrt_w)
      : row_(row), columns_(columns), y_(y), sqrt_w_(sqrt_w) {}
  bool operator()(const double* const* parameters, double* residual, double** jacobian) const {
    double predicted = 0.0;
    for (int k = 0; k < columns_; ++k) predicted += row_[k] * parameters[0][k];
    residual[0] = sqrt_w_ * (y_ - predicted);
    if (jacobian != nullptr && jacobian[0] != nullptr) {
      for (int k = 0; k < columns_; ++k) jacobian[0][k] = -sqrt_w_ * row_[k];
    }
    return true;
  }
  const double* row_;
  int columns_;
  double y_;
  double sqrt_w_;
};

ceres::Solver::Options quiet_options() {
  ceres::Solver::Options options;
  options.linear_solver_type = ceres::DENSE_QR;
  options.logging_type = ceres::SILENT;
  options.minimizer_progress_to_stdout = false;
  options.max_num_iterations = 100;
  options.num_threads = 1;  // kernels are already fitted in parallel
  return options;
}

}  // namespace

LinearFit fit_robust(const Eigen::MatrixXd& design, std::span<const double> y,
                     std::span<const double> weights, Loss loss) {
  LinearFit start = fit_least_squares(design, y, weights);
  if (!start.ok || loss == Loss::kLeastSquares) return start;
  const Eigen::Index n = design.rows();
  const auto p = static_cast<int>(design.cols());
  // Robust scale of the normalised residuals (MAD), so the loss bends at outliers only.
  std::vector<double> normalised;
  for (Eigen::Index i = 0; i < n; ++i) {
    normalised.push_back(std::fabs(start.residuals(i)) *
                         std::sqrt(weights[static_cast<std::size_t>(i)]));
  }
  double sigma = 1.4826 * stats::median(normalised);
  if (!(sigma > 0.0)) sigma = std::sqrt(start.weighted_rss / static_cast<double>(n)) + 1e-300;
  const double scale = (loss == Loss::kHuber ? 1.345 : 2.385) * sigma;

  // Row-major copy so each residual reads one contiguous row.
  const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> rows = design;
  std::vector<double> coefficients(start.coefficients.data(), start.coefficients.data() + p);
  ceres::Problem::Options problem_options;
  problem_options.loss_function_ownership = ceres::DO_NOT_TAKE_OWNERSHIP;
  ceres::Problem problem(problem_options);
  std::unique_ptr<ceres::LossFunction> loss_function;
  if (loss == Loss::kHuber) {
    loss_function = std::make_unique<ceres::HuberLoss>(scale);
  } else {
    loss_function = std::make_unique<ceres::CauchyLoss>(scale);
  }
  // A dynamic analytic cost function per point: residual = sqrt(w) (y - x . c).
  class PointCost : public ceres::CostFunction {
   public:
    PointCost(LinearResidual r, int p) : r_(r) {
      set_num_residuals(1);
      mutable_parameter_block_sizes()->push_back(p);
    }
    bool Evaluate(double const* const* parameters, double* residuals,
                  double** jacobians) const override {
      return r_(parameters, residuals, jacobians);
    }

   private:
    LinearResidual r_;
  };
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto idx = static_cast<std::size_t>(i);
    problem.AddResidualBlock(
        new PointCost(LinearResidual(rows.row(i).data(), p, y[idx], std::sqrt(weights[idx])), p),
        loss_function.get(), coefficients.data());
  }
  ceres::Solver::Summary summary;
  ceres::Solve(quiet_options(), &problem, &summary);
  if (!summary.IsSolutionUsable()) return start;

  // Effective IRLS weights at the solution: the robust fit is their weighted least squares.
  Eigen::VectorXd c = Eigen::Map<Eigen::VectorXd>(coefficients.data(), p);
  std::vector<double> effective(weights.begin(), weights.end());
  double robust_cost = 0.0;
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto idx = static_cast<std::size_t>(i);
    const double r = std::sqrt(weights[idx]) * (y[idx] - design.row(i).dot(c));
    double rho[3];
    loss_function->Evaluate(r * r, rho);
    robust_cost += rho[0];
    effective[idx] = weights[idx] * std::max(rho[1], 1e-12);
  }
  LinearFit fit = fit_least_squares(design, y, effective);
  if (!fit.ok) return start;
  fit.coefficients = c;
  Eigen::VectorXd y_vec = Eigen::Map<const Eigen::VectorXd>(y.data(), n);
  fit.residuals = y_vec - design * c;
  fit.weighted_rss = robust_cost;
  return fit;
}

namespace {

struct PmnfResidual {
  PmnfResidual(double t, double y, double sqrt_w, std::vector<int> logs)
      : t_(t), y_(y), sqrt_w_(sqrt_w), logs_(std::move(logs)) {}
  // parameters[0]: constant and coefficients (1 + k); parameters[1]: exponents (k).
  template <typename T>
  bool operator()(T const* const* parameters, T* residual) const {
    T predicted = parameters[0][0];
    const double log_t = std::log2(t_);
    for (std::size_t k = 0; k < logs_.size(); ++k) {
      T term = parameters[0][k + 1] * ceres::pow(T(t_), parameters[1][k]);
      if (logs_[k] != 0) term *= T(std::pow(log_t, logs_[k]));
      predicted += term;
    }
    residual[0] = T(sqrt_w_) * (T(y_) - predicted);
    return true;
  }
  double t_;
  double y_;
  double sqrt_w_;
  std::vector<int> logs_;
};

}  // namespace

RefinedFit refine_exponents(const Model& start, std::span<const double> t,
                            std::span<const double> y, std::span<const double> weights) {
  RefinedFit out;
  const int k = static_cast<int>(start.terms.size());
  if (k == 0) return out;
  std::vector<double> coefficients{start.constant};
  std::vector<double> exponents;
  std::vector<int> logs;
  for (const Term& term : start.terms) {
    coefficients.push_back(term.coefficient);
    exponents.push_back(term.shape.exponent);
    logs.push_back(term.shape.log_exponent);
  }
  ceres::Problem problem;
  for (std::size_t i = 0; i < t.size(); ++i) {
    auto* cost = new ceres::DynamicAutoDiffCostFunction<PmnfResidual>(
        new PmnfResidual(t[i], y[i], std::sqrt(weights[i]), logs));
    cost->AddParameterBlock(k + 1);
    cost->AddParameterBlock(k);
    cost->SetNumResiduals(1);
    problem.AddResidualBlock(cost, nullptr, coefficients.data(), exponents.data());
  }
  // Keep exponents in a sane range: within 1 of the start and never below -3 or above 4.
  for (int j = 0; j < k; ++j) {
    problem.SetParameterLowerBound(exponents.data(), j, std::max(-3.0, exponents[j] - 1.0));
    problem.SetParameterUpperBound(exponents.data(), j, std::min(4.0, exponents[j] + 1.0));
  }
  ceres::Solver::Summary summary;
  ceres::Solve(quiet_options(), &problem, &summary);
  if (!summary.IsSolutionUsable()) return out;
  out.ok = true;
  out.model.constant = coefficients[0];
  for (int j = 0; j < k; ++j) {
    out.model.terms.push_back({coefficients[j + 1], {exponents[j], logs[j]}});
  }
  out.weighted_rss = 2.0 * summary.final_cost;
  return out;
}

}  // namespace ompscale::modeler

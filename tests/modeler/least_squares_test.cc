// Weighted linear least squares (and the Ceres-based robust fit and exponent refinement built on
// it): exact recovery, weights, rank deficiency, leverage, covariance.

#include "modeler/numerics/least_squares.h"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <numeric>
#include <vector>

#include "modeler/numerics/nonlinear.h"

namespace ompscale::modeler {
namespace {

const std::vector<double> kFitThreads = {1, 2, 4, 8, 16, 32, 64};

std::vector<double> evaluate(const Model& m, const std::vector<double>& t) {
  std::vector<double> y;
  for (double v : t) y.push_back(m.evaluate(v));
  return y;
}

TEST(DesignMatrix, OnesThenShapes) {
  const std::vector<double> t = {1, 4, 16};
  const std::vector<TermShape> shapes = {{0.5, 0}, {0.0, 1}, {1.0, 2}};
  const Eigen::MatrixXd x = design_matrix(t, shapes);
  ASSERT_EQ(x.rows(), 3);
  ASSERT_EQ(x.cols(), 4);
  Eigen::MatrixXd want(3, 4);
  want << 1, 1, 0, 0,  //
      1, 2, 2, 16,     // 4^(1/2), log2 4, 4 * 2^2
      1, 4, 4, 256;    // 16^(1/2), log2 16, 16 * 4^2
  EXPECT_EQ(x, want);
}

TEST(LeastSquares, ExactRecoveryOnNoiselessData) {
  Model truth;
  truth.constant = 3.0;
  truth.terms = {{2.0, {1.5, 0}}, {0.5, {0.0, 1}}};
  const std::vector<TermShape> shapes = {{1.5, 0}, {0.0, 1}};
  const std::vector<double> y = evaluate(truth, kFitThreads);
  const std::vector<double> w(kFitThreads.size(), 1.0);
  const LinearFit fit = fit_least_squares(design_matrix(kFitThreads, shapes), y, w);
  ASSERT_TRUE(fit.ok);
  ASSERT_EQ(fit.coefficients.size(), 3);
  EXPECT_NEAR(fit.coefficients(0), 3.0, 1e-10);
  EXPECT_NEAR(fit.coefficients(1), 2.0, 1e-12);
  EXPECT_NEAR(fit.coefficients(2), 0.5, 1e-10);
  EXPECT_LT(fit.weighted_rss, 1e-18);
  EXPECT_LT(fit.residuals.cwiseAbs().maxCoeff(), 1e-10);
  const Model m = fit.model(shapes);
  EXPECT_NEAR(m.constant, 3.0, 1e-10);
  ASSERT_EQ(m.terms.size(), 2u);
  EXPECT_EQ(m.terms[0].shape, (TermShape{1.5, 0}));
  EXPECT_EQ(m.terms[1].shape, (TermShape{0.0, 1}));
  EXPECT_NEAR(m.terms[0].coefficient, 2.0, 1e-12);
  EXPECT_NEAR(m.terms[1].coefficient, 0.5, 1e-10);
}

TEST(LeastSquares, ExactRecoveryWithNonUniformWeights) {
  // Noiseless data: any positive weights give the same exact coefficients.
  Model truth;
  truth.constant = -1.0;
  truth.terms = {{0.25, {2.0, 0}}};
  const std::vector<TermShape> shapes = {{2.0, 0}};
  const std::vector<double> y = evaluate(truth, kFitThreads);
  std::vector<double> w;
  for (double v : y) w.push_back(1.0 / (v * v + 1.0));
  const LinearFit fit = fit_least_squares(design_matrix(kFitThreads, shapes), y, w);
  ASSERT_TRUE(fit.ok);
  EXPECT_NEAR(fit.coefficients(0), -1.0, 1e-10);
  EXPECT_NEAR(fit.coefficients(1), 0.25, 1e-13);
}

TEST(LeastSquares, HandComputedLine) {
  // t = 1, 2, 3; y = 1, 3, 2: slope 1/2, intercept 1, residuals -1/2, 1, -1/2, RSS 3/2.
  const std::vector<double> t = {1, 2, 3};
  const std::vector<double> y = {1, 3, 2};
  const std::vector<double> w = {1, 1, 1};
  const std::vector<TermShape> shapes = {{1.0, 0}};
  const LinearFit fit = fit_least_squares(design_matrix(t, shapes), y, w);
  ASSERT_TRUE(fit.ok);
  EXPECT_NEAR(fit.coefficients(0), 1.0, 1e-14);
  EXPECT_NEAR(fit.coefficients(1), 0.5, 1e-14);
  EXPECT_NEAR(fit.residuals(0), -0.5, 1e-14);
  EXPECT_NEAR(fit.residuals(1), 1.0, 1e-14);
  EXPECT_NEAR(fit.residuals(2), -0.5, 1e-14);
  EXPECT_NEAR(fit.weighted_rss, 1.5, 1e-14);
  // (X^T X)^-1 for X = [1 1; 1 2; 1 3]: X^T X = [3 6; 6 14], det 6 -> [14 -6; -6 3] / 6.
  EXPECT_NEAR(fit.inverse_normal(0, 0), 14.0 / 6.0, 1e-13);
  EXPECT_NEAR(fit.inverse_normal(0, 1), -1.0, 1e-13);
  EXPECT_NEAR(fit.inverse_normal(1, 0), -1.0, 1e-13);
  EXPECT_NEAR(fit.inverse_normal(1, 1), 0.5, 1e-13);
  // Leverages: h_i = x_i^T (X^T X)^-1 x_i = 5/6, 1/3, 5/6.
  EXPECT_NEAR(fit.leverage(0), 5.0 / 6.0, 1e-13);
  EXPECT_NEAR(fit.leverage(1), 1.0 / 3.0, 1e-13);
  EXPECT_NEAR(fit.leverage(2), 5.0 / 6.0, 1e-13);
}

TEST(LeastSquares, WeightedMeanForConstantModel) {
  // Constant only: c = sum(w y) / sum(w) = (1 + 2 + 3 + 7 * 10) / 10 = 7.6.
  const std::vector<double> t = {1, 2, 4, 8};
  const std::vector<double> y = {1, 2, 3, 10};
  const std::vector<double> w = {1, 1, 1, 7};
  const LinearFit fit = fit_least_squares(design_matrix(t, {}), y, w);
  ASSERT_TRUE(fit.ok);
  EXPECT_NEAR(fit.coefficients(0), 7.6, 1e-13);
  EXPECT_NEAR(fit.inverse_normal(0, 0), 0.1, 1e-15);  // 1 / sum(w)
  // Leverage of a constant fit: w_i / sum(w).
  EXPECT_NEAR(fit.leverage(0), 0.1, 1e-15);
  EXPECT_NEAR(fit.leverage(3), 0.7, 1e-15);
  // weighted RSS = sum w (y - 7.6)^2
  const double rss = 6.6 * 6.6 + 5.6 * 5.6 + 4.6 * 4.6 + 7 * 2.4 * 2.4;
  EXPECT_NEAR(fit.weighted_rss, rss, 1e-11);
  // residuals are unweighted
  EXPECT_NEAR(fit.residuals(3), 2.4, 1e-13);
}

TEST(LeastSquares, HeavilyWeightedPointIsFittedExactly) {
  // A line through points that are not collinear; t = 8 weighs 1e10 times the others.
  const std::vector<double> t = {1, 2, 4, 8, 16};
  const std::vector<double> y = {1.0, 2.5, 3.0, 20.0, 9.0};
  const std::vector<TermShape> shapes = {{1.0, 0}};
  const std::vector<double> equal(5, 1.0);
  const std::vector<double> heavy = {1, 1, 1, 1e10, 1};
  const LinearFit plain = fit_least_squares(design_matrix(t, shapes), y, equal);
  const LinearFit weighted = fit_least_squares(design_matrix(t, shapes), y, heavy);
  ASSERT_TRUE(plain.ok);
  ASSERT_TRUE(weighted.ok);
  EXPECT_GT(std::fabs(plain.residuals(3)), 1.0);
  EXPECT_NEAR(weighted.residuals(3), 0.0, 1e-6);
  EXPECT_NEAR(weighted.coefficients(0) + 8.0 * weighted.coefficients(1), 20.0, 1e-6);
  // The heavy point's leverage goes to 1 (1 - O(1 / weight)).
  EXPECT_NEAR(weighted.leverage(3), 1.0, 1e-5);
  EXPECT_LT(plain.leverage(3), 0.5);
}

TEST(LeastSquares, ZeroWeightIgnoresPoint) {
  // Weight 0 on a wild point: the exact line through the rest.
  const std::vector<double> t = {1, 2, 4, 8};
  const std::vector<double> y = {3, 5, 1000, 17};  // 1 + 2t except at t = 4
  const std::vector<double> w = {1, 1, 0, 1};
  const LinearFit fit = fit_least_squares(design_matrix(t, std::vector<TermShape>{{1.0, 0}}), y, w);
  ASSERT_TRUE(fit.ok);
  EXPECT_NEAR(fit.coefficients(0), 1.0, 1e-12);
  EXPECT_NEAR(fit.coefficients(1), 2.0, 1e-12);
  EXPECT_NEAR(fit.residuals(2), 1000.0 - 9.0, 1e-9);
  EXPECT_NEAR(fit.weighted_rss, 0.0, 1e-18);
}

TEST(LeastSquares, RankDeficientIsNotOk) {
  // A log term where every t is 1: log2(1) = 0, the column is all zeros.
  {
    const std::vector<double> t = {1, 1, 1, 1};
    const std::vector<double> y = {1, 2, 3, 4};
    const std::vector<double> w(4, 1.0);
    const LinearFit fit =
        fit_least_squares(design_matrix(t, std::vector<TermShape>{{0.0, 1}}), y, w);
    EXPECT_FALSE(fit.ok);
  }
  // t^1 where every t is 2: the column is twice the constant's.
  {
    const std::vector<double> t = {2, 2, 2};
    const std::vector<double> y = {1, 2, 3};
    const std::vector<double> w(3, 1.0);
    const LinearFit fit =
        fit_least_squares(design_matrix(t, std::vector<TermShape>{{1.0, 0}}), y, w);
    EXPECT_FALSE(fit.ok);
  }
  // The same shape twice.
  {
    const std::vector<double> w(kFitThreads.size(), 1.0);
    const LinearFit fit = fit_least_squares(
        design_matrix(kFitThreads, std::vector<TermShape>{{0.5, 0}, {0.5, 0}}), kFitThreads, w);
    EXPECT_FALSE(fit.ok);
  }
  // Fewer points than coefficients.
  {
    const std::vector<double> t = {1, 2};
    const std::vector<double> y = {1, 2};
    const std::vector<double> w(2, 1.0);
    const LinearFit fit =
        fit_least_squares(design_matrix(t, std::vector<TermShape>{{1.0, 0}, {2.0, 0}}), y, w);
    EXPECT_FALSE(fit.ok);
  }
}

TEST(LeastSquares, LeverageSumsToCoefficientCount) {
  const std::vector<double> y = {3, 1, 4, 1, 5, 9, 2};
  const std::vector<double> w = {1, 2, 0.5, 3, 1, 0.25, 4};
  for (const auto& shapes : std::vector<std::vector<TermShape>>{
           {}, {{1.0, 0}}, {{0.5, 0}, {0.0, 1}}, {{0.25, 0}, {1.0, 1}, {2.0, 0}}}) {
    SCOPED_TRACE(shapes.size());
    const LinearFit fit = fit_least_squares(design_matrix(kFitThreads, shapes), y, w);
    ASSERT_TRUE(fit.ok);
    EXPECT_NEAR(fit.leverage.sum(), static_cast<double>(shapes.size() + 1), 1e-10);
    for (Eigen::Index i = 0; i < fit.leverage.size(); ++i) {
      EXPECT_GE(fit.leverage(i), -1e-12);
      EXPECT_LE(fit.leverage(i), 1.0 + 1e-12);
    }
  }
}

TEST(LeastSquares, InverseNormalMatchesDirectInverse) {
  const std::vector<double> y = {3, 1, 4, 1, 5, 9, 2};
  const std::vector<double> w = {1, 2, 0.5, 3, 1, 0.25, 4};
  const std::vector<TermShape> shapes = {{0.5, 0}, {0.0, 1}};
  const Eigen::MatrixXd x = design_matrix(kFitThreads, shapes);
  const LinearFit fit = fit_least_squares(x, y, w);
  ASSERT_TRUE(fit.ok);
  const Eigen::VectorXd wv = Eigen::Map<const Eigen::VectorXd>(w.data(), 7);
  const Eigen::MatrixXd normal = x.transpose() * wv.asDiagonal() * x;
  const Eigen::MatrixXd want = normal.inverse();
  ASSERT_EQ(fit.inverse_normal.rows(), 3);
  ASSERT_EQ(fit.inverse_normal.cols(), 3);
  for (Eigen::Index r = 0; r < 3; ++r) {
    for (Eigen::Index c = 0; c < 3; ++c) {
      EXPECT_NEAR(fit.inverse_normal(r, c), want(r, c), 1e-10 * want.cwiseAbs().maxCoeff())
          << r << "," << c;
    }
  }
  // And the coefficients solve the normal equations.
  const Eigen::VectorXd yv = Eigen::Map<const Eigen::VectorXd>(y.data(), 7);
  const Eigen::VectorXd c = want * (x.transpose() * wv.asDiagonal() * yv);
  EXPECT_LT((fit.coefficients - c).cwiseAbs().maxCoeff(), 1e-10);
  // Leverage = diag(W^1/2 X (X^T W X)^-1 X^T W^1/2).
  for (Eigen::Index i = 0; i < 7; ++i) {
    const double h = w[static_cast<std::size_t>(i)] * x.row(i).dot(want * x.row(i).transpose());
    EXPECT_NEAR(fit.leverage(i), h, 1e-10);
  }
}

// --- fit_one_term: the closed form for [1, x] ----------------------------------------------

LinearFit one_term(std::span<const double> x, std::span<const double> y,
                   std::span<const double> weights) {
  LinearFit fit;
  fit_one_term(x, y, weights, fit);
  return fit;
}

TEST(FitOneTerm, AgreesWithQr) {
  const std::vector<double> y = {3, 1, 4, 1, 5, 9, 2};
  const std::vector<double> w = {1, 2, 0.5, 3, 1, 0.25, 4};
  for (const TermShape& shape : std::vector<TermShape>{{1.0, 0}, {0.5, 1}, {0.0, 2}, {2.0, 0}}) {
    SCOPED_TRACE(shape.exponent);
    const std::vector<TermShape> shapes = {shape};
    const Eigen::MatrixXd x = design_matrix(kFitThreads, shapes);
    std::vector<double> column;
    for (double t : kFitThreads) column.push_back(shape.evaluate(t));
    const LinearFit qr = fit_least_squares(x, y, w);
    const LinearFit closed = one_term(column, y, w);
    ASSERT_TRUE(qr.ok);
    ASSERT_TRUE(closed.ok);
    const double scale = qr.coefficients.cwiseAbs().maxCoeff();
    EXPECT_LT((closed.coefficients - qr.coefficients).cwiseAbs().maxCoeff(), 1e-10 * scale);
    const double cov_scale = qr.inverse_normal.cwiseAbs().maxCoeff();
    EXPECT_LT((closed.inverse_normal - qr.inverse_normal).cwiseAbs().maxCoeff(), 1e-10 * cov_scale);
    EXPECT_LT((closed.leverage - qr.leverage).cwiseAbs().maxCoeff(), 1e-10);
    EXPECT_LT((closed.residuals - qr.residuals).cwiseAbs().maxCoeff(), 1e-9);
    EXPECT_NEAR(closed.weighted_rss, qr.weighted_rss, 1e-9 * qr.weighted_rss);
    EXPECT_NEAR(closed.leverage.sum(), 2.0, 1e-10);
  }
}

TEST(FitOneTerm, HandComputedLine) {
  // Same line as LeastSquares.HandComputedLine.
  const std::vector<double> x = {1, 2, 3};
  const std::vector<double> y = {1, 3, 2};
  const std::vector<double> w = {1, 1, 1};
  const LinearFit fit = one_term(x, y, w);
  ASSERT_TRUE(fit.ok);
  EXPECT_NEAR(fit.coefficients(0), 1.0, 1e-14);
  EXPECT_NEAR(fit.coefficients(1), 0.5, 1e-14);
  EXPECT_NEAR(fit.weighted_rss, 1.5, 1e-14);
  EXPECT_NEAR(fit.inverse_normal(0, 0), 14.0 / 6.0, 1e-13);
  EXPECT_NEAR(fit.inverse_normal(0, 1), -1.0, 1e-13);
  EXPECT_NEAR(fit.inverse_normal(1, 1), 0.5, 1e-13);
  EXPECT_NEAR(fit.leverage(1), 1.0 / 3.0, 1e-13);
  const Model m = fit.model(std::vector<TermShape>{{1.0, 0}});
  EXPECT_NEAR(m.evaluate(4.0), 3.0, 1e-13);
}

TEST(FitOneTerm, RankDeficientIsNotOk) {
  // log2(t) with every t = 1: the column is all zeros.
  const std::vector<double> zeros(4, 0.0);
  const std::vector<double> y = {1, 2, 3, 4};
  const std::vector<double> w(4, 1.0);
  EXPECT_FALSE(one_term(zeros, y, w).ok);
  // A constant column: indistinguishable from the constant.
  const std::vector<double> twos(4, 2.0);
  EXPECT_FALSE(one_term(twos, y, w).ok);
  // One point.
  EXPECT_FALSE(
      one_term(std::vector<double>{1.0}, std::vector<double>{1.0}, std::vector<double>{1.0}).ok);
}

TEST(FitOneTerm, IntoAReusedFitGivesTheFreshFit) {
  // The selection fits every hypothesis into one fit: nothing of the previous hypothesis (its
  // values, a failed fit, another number of points) may show in the next one.
  const std::vector<double> x = {1, 2, 3, 4};
  const std::vector<double> y = {1, 3, 2, 5};
  const std::vector<double> w = {1, 2, 1, 0.5};
  const LinearFit fresh = one_term(x, y, w);
  LinearFit reused;
  fit_one_term(std::vector<double>{1, 2, 3, 4, 5, 6}, std::vector<double>{6, 5, 4, 3, 2, 1},
               std::vector<double>(6, 1.0), reused);
  fit_one_term(std::vector<double>(4, 2.0), y, w, reused);  // rank deficient
  EXPECT_FALSE(reused.ok);
  fit_one_term(x, y, w, reused);
  ASSERT_TRUE(reused.ok);
  EXPECT_EQ(reused.coefficients, fresh.coefficients);
  EXPECT_EQ(reused.inverse_normal, fresh.inverse_normal);
  EXPECT_EQ(reused.leverage, fresh.leverage);
  EXPECT_EQ(reused.residuals, fresh.residuals);
  EXPECT_EQ(reused.weighted_rss, fresh.weighted_rss);
}

TEST(LinearFit, WithoutPointValuesKeepsTheModel) {
  const LinearFit fit = one_term(std::vector<double>{1, 2, 3}, std::vector<double>{1, 3, 2},
                                 std::vector<double>(3, 1.0));
  const LinearFit summary = without_point_values(fit);
  EXPECT_TRUE(summary.ok);
  EXPECT_EQ(summary.coefficients, fit.coefficients);
  EXPECT_EQ(summary.inverse_normal, fit.inverse_normal);
  EXPECT_EQ(summary.weighted_rss, fit.weighted_rss);
  EXPECT_EQ(summary.leverage.size(), 0);
  EXPECT_EQ(summary.residuals.size(), 0);
}

// --- nonlinear.h: robust losses and exponent refinement -------------------------------------

TEST(RobustFit, LeastSquaresLossIsPlainFit) {
  const std::vector<double> y = {3, 1, 4, 1, 5, 9, 2};
  const std::vector<double> w(7, 1.0);
  const Eigen::MatrixXd x = design_matrix(kFitThreads, std::vector<TermShape>{{1.0, 0}});
  const LinearFit a = fit_least_squares(x, y, w);
  const LinearFit b = fit_robust(x, y, w, Loss::kLeastSquares);
  ASSERT_TRUE(b.ok);
  EXPECT_EQ(a.coefficients, b.coefficients);
  EXPECT_EQ(a.weighted_rss, b.weighted_rss);
}

TEST(RobustFit, HuberAndCauchyResistOneOutlier) {
  // y = 10 + 2 t exactly at t = 1..12, except t = 6 measured 10x too high.
  std::vector<double> t, y;
  for (int i = 1; i <= 12; ++i) {
    t.push_back(i);
    y.push_back(10.0 + 2.0 * i);
  }
  y[5] *= 10.0;
  const std::vector<double> w(t.size(), 1.0);
  const Eigen::MatrixXd x = design_matrix(t, std::vector<TermShape>{{1.0, 0}});
  const LinearFit ls = fit_least_squares(x, y, w);
  const double ls_error =
      std::fabs(ls.coefficients(0) - 10.0) + std::fabs(ls.coefficients(1) - 2.0);
  ASSERT_GT(ls_error, 5.0) << "the outlier should spoil least squares";
  for (Loss loss : {Loss::kHuber, Loss::kCauchy}) {
    SCOPED_TRACE(static_cast<int>(loss));
    const LinearFit robust = fit_robust(x, y, w, loss);
    ASSERT_TRUE(robust.ok);
    const double error =
        std::fabs(robust.coefficients(0) - 10.0) + std::fabs(robust.coefficients(1) - 2.0);
    EXPECT_LT(error, 0.2 * ls_error);
    // Residuals are those of the robust coefficients.
    EXPECT_NEAR(robust.residuals(5), y[5] - robust.coefficients(0) - 6.0 * robust.coefficients(1),
                1e-9);
  }
}

TEST(RefineExponents, RecoversContinuousExponent) {
  // y = 1 + 2 t^0.37 exactly; start from the nearest paper exponent, t^(1/3).
  Model truth;
  truth.constant = 1.0;
  truth.terms = {{2.0, {0.37, 0}}};
  const std::vector<double> y = evaluate(truth, kFitThreads);
  const std::vector<double> w(kFitThreads.size(), 1.0);
  const std::vector<TermShape> start_shapes = {{1.0 / 3.0, 0}};
  const LinearFit start = fit_least_squares(design_matrix(kFitThreads, start_shapes), y, w);
  ASSERT_TRUE(start.ok);
  const RefinedFit refined = refine_exponents(start.model(start_shapes), kFitThreads, y, w);
  ASSERT_TRUE(refined.ok);
  ASSERT_EQ(refined.model.terms.size(), 1u);
  EXPECT_NEAR(refined.model.terms[0].shape.exponent, 0.37, 1e-5);
  EXPECT_EQ(refined.model.terms[0].shape.log_exponent, 0);
  EXPECT_NEAR(refined.model.terms[0].coefficient, 2.0, 1e-4);
  EXPECT_NEAR(refined.model.constant, 1.0, 1e-4);
  EXPECT_LT(refined.weighted_rss, start.weighted_rss);
  EXPECT_LT(refined.weighted_rss, 1e-8);
}

TEST(RefineExponents, ConstantModelIsNotRefined) {
  Model constant;
  constant.constant = 3.0;
  const std::vector<double> y(kFitThreads.size(), 3.0);
  const std::vector<double> w(kFitThreads.size(), 1.0);
  EXPECT_FALSE(refine_exponents(constant, kFitThreads, y, w).ok);
}

}  // namespace
}  // namespace ompscale::modeler

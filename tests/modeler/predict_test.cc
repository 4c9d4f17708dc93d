// Predictions from a predictive mixture, and budget crossings.

#include "modeler/prediction/predict.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <numbers>
#include <optional>
#include <utility>
#include <vector>

namespace ompscale::modeler {
namespace {

Model linear(double c0, double c1) {
  Model m;
  m.constant = c0;
  m.terms.push_back({c1, {1.0, 0}});
  return m;
}

Model constant_model(double c) {
  Model m;
  m.constant = c;
  return m;
}

PredictiveComponent component(Model model, double weight = 1.0) {
  PredictiveComponent c;
  c.weight = weight;
  const std::size_t p = model.terms.size() + 1;
  c.model = std::move(model);
  c.covariance.assign(p * p, 0.0);
  return c;
}

double student_quantile(double dof, double p) {
  return boost::math::quantile(boost::math::students_t(dof), p);
}

TEST(Predict, DegenerateWithoutUncertainty) {
  PredictiveDistribution d;
  d.components.push_back(component(linear(5.0, 2.0)));
  const Prediction p = predict(d, 3.0, 0.9);
  EXPECT_EQ(p.param, 3.0);
  EXPECT_EQ(p.level, 0.9);
  EXPECT_DOUBLE_EQ(p.value, 11.0);
  EXPECT_DOUBLE_EQ(p.interval.low, 11.0);
  EXPECT_DOUBLE_EQ(p.interval.high, 11.0);
  // A covariance of the wrong size is ignored, not read out of bounds.
  d.components[0].covariance = {1.0};
  const Prediction q = predict(d, 3.0, 0.9);
  EXPECT_DOUBLE_EQ(q.interval.low, 11.0);
  EXPECT_DOUBLE_EQ(q.interval.high, 11.0);
}

TEST(Predict, NoComponents) {
  const Prediction p = predict(PredictiveDistribution{}, 8.0, 0.9);
  EXPECT_EQ(p.param, 8.0);
  EXPECT_EQ(p.value, 0.0);
}

TEST(Predict, StudentTIntervalFromCovarianceAndNoise) {
  PredictiveDistribution d;
  PredictiveComponent c = component(linear(1.0, 2.0));
  c.covariance = {0.04, 0.01,  //
                  0.01, 0.09};
  c.dof = 5.0;
  c.noise_sd_absolute = 0.3;
  c.noise_sd_relative = 0.02;
  d.components.push_back(c);
  // t = 4: f = 9; x = (1, 4): x^T C x = 0.04 + 2 * 4 * 0.01 + 16 * 0.09 = 1.56;
  // noise: 0.3^2 + (0.02 * 9)^2 = 0.09 + 0.0324.
  const double scale = std::sqrt(1.56 + 0.09 + 0.0324);
  for (double level : {0.5, 0.9, 0.99}) {
    SCOPED_TRACE(level);
    const double q = student_quantile(5.0, 1.0 - (1.0 - level) / 2.0);
    const Prediction p = predict(d, 4.0, level);
    EXPECT_NEAR(p.value, 9.0, 1e-9);
    EXPECT_NEAR(p.interval.low, 9.0 - q * scale, 1e-9);
    EXPECT_NEAR(p.interval.high, 9.0 + q * scale, 1e-9);
  }
  // Hard-coded: t(5) 95% quantile = 2.015048372669157.
  const Prediction p90 = predict(d, 4.0, 0.9);
  EXPECT_NEAR(p90.interval.high - 9.0, 2.015048372669157 * scale, 1e-9);
}

/// Half the width of the 90% interval at t of one component: f = 10, relative noise 2% (effectively
/// normal), measured range [2, 16], with the given drift and change of law per doubling.
double extrapolated_half_width(double t, double drift, double law_change) {
  PredictiveComponent c = component(constant_model(10.0));
  c.dof = 1e9;
  c.noise_sd_relative = 0.02;
  c.drift_sd_relative = drift;
  c.law_change_sd_relative = law_change;
  c.range_low = 2.0;
  c.range_high = 16.0;
  PredictiveDistribution d;
  d.components.push_back(c);
  const Prediction p = predict(d, t, 0.9);
  return (p.interval.high - p.interval.low) / 2.0;
}

TEST(Predict, ModelFormDriftGrowsWithDoublingsOutsideTheRange) {
  const double z = student_quantile(1e9, 0.95);
  const auto half_width = [](double t) { return extrapolated_half_width(t, 0.05, 0.0); };
  EXPECT_NEAR(half_width(8.0), z * 0.2, 1e-6) << "inside the range: noise only";
  EXPECT_NEAR(half_width(16.0), z * 0.2, 1e-6);
  // 64 is two doublings above 16: sd = 10 * sqrt(0.02^2 + (2 * 0.05)^2).
  EXPECT_NEAR(half_width(64.0), z * 10.0 * std::sqrt(0.0004 + 0.01), 1e-6);
  // 1 is one doubling below 2.
  EXPECT_NEAR(half_width(1.0), z * 10.0 * std::sqrt(0.0004 + 0.0025), 1e-6);
}

TEST(Predict, ChangeOfLawAddsToTheDriftInQuadrature) {
  const double z = student_quantile(1e9, 0.95);
  EXPECT_NEAR(extrapolated_half_width(16.0, 0.05, 0.12), z * 0.2, 1e-6) << "inside: noise only";
  // One doubling above 16: per doubling sqrt(0.05^2 + 0.12^2) = 0.13.
  EXPECT_NEAR(extrapolated_half_width(32.0, 0.05, 0.12), z * 10.0 * std::sqrt(0.0004 + 0.13 * 0.13),
              1e-6);
}

TEST(Predict, ExtrapolationUncertaintyDoesNotMoveThePoint) {
  // Two laws of equal belief, 10 and 20 at t = 64: the point is their midpoint. Widening both by
  // drift and change of law beyond the range widens the interval, not the point.
  PredictiveComponent low = component(constant_model(10.0));
  PredictiveComponent high = component(constant_model(20.0));
  for (PredictiveComponent* c : {&low, &high}) {
    c->weight = 0.5;
    c->dof = 1e9;
    c->noise_sd_relative = 0.05;
    c->positive = true;
    c->range_low = 2.0;
    c->range_high = 16.0;
  }
  PredictiveDistribution narrow{{low, high}};
  high.drift_sd_relative = 0.3;
  high.law_change_sd_relative = 0.1;
  low.law_change_sd_relative = 0.1;
  PredictiveDistribution wide{{low, high}};
  const Prediction a = predict(narrow, 64.0, 0.9);
  const Prediction b = predict(wide, 64.0, 0.9);
  EXPECT_EQ(a.value, b.value);
  EXPECT_DOUBLE_EQ(a.value, 15.0) << "a tie: the midpoint of the two laws";
  EXPECT_GT(b.interval.high, a.interval.high);
  EXPECT_LT(b.interval.low, a.interval.low);
}

TEST(Predict, PositiveComponentsAreMultiplicative) {
  // Relative sd 50%, normal: additively the 5% quantile would be 10 - 8.2 = 1.8 and with 80%
  // it would be negative; multiplicatively it is 10 * exp(-1.645 * 0.5), the median stays 10.
  PredictiveComponent c = component(constant_model(10.0));
  c.dof = 1e9;
  c.noise_sd_relative = 0.8;
  c.positive = true;
  PredictiveDistribution d;
  d.components.push_back(c);
  const double z = student_quantile(1e9, 0.95);
  const Prediction p = predict(d, 4.0, 0.9);
  EXPECT_NEAR(p.value, 10.0, 1e-9);
  EXPECT_NEAR(p.interval.low, 10.0 * std::exp(-z * 0.8), 1e-6);
  EXPECT_NEAR(p.interval.high, 10.0 * std::exp(z * 0.8), 1e-6);
  EXPECT_GT(p.interval.low, 0.0);
  c.positive = false;
  d.components = {c};
  EXPECT_LT(predict(d, 4.0, 0.9).interval.low, 0.0) << "the additive component goes negative";
}

TEST(Predict, DegreesOfFreedomBelowOneCountAsOne) {
  PredictiveDistribution d;
  PredictiveComponent c = component(constant_model(0.0));
  c.noise_sd_absolute = 1.0;
  c.dof = 0.2;
  d.components.push_back(c);
  // t(1) is the Cauchy distribution: 95% quantile tan(0.45 pi) = 6.313751514675...
  const Prediction p = predict(d, 1.0, 0.9);
  EXPECT_NEAR(p.interval.high, std::tan(0.45 * std::numbers::pi), 1e-8);
  EXPECT_NEAR(p.interval.low, -std::tan(0.45 * std::numbers::pi), 1e-8);
}

PredictiveDistribution two_constants(double w1, double w2) {
  PredictiveDistribution d;
  PredictiveComponent a = component(constant_model(10.0), w1);
  PredictiveComponent b = component(constant_model(20.0), w2);
  a.noise_sd_absolute = b.noise_sd_absolute = 1.0;
  a.dof = b.dof = 30.0;
  d.components = {a, b};
  return d;
}

double mixture_cdf(const PredictiveDistribution& d, double x) {
  double total = 0.0, cdf = 0.0;
  for (const auto& c : d.components) total += c.weight;
  for (const auto& c : d.components) {
    cdf += c.weight / total *
           boost::math::cdf(boost::math::students_t(c.dof),
                            (x - c.model.constant) / c.noise_sd_absolute);
  }
  return cdf;
}

// The point value is the weighted median of the components' locations (the location of a
// component holding more than half of the weight when there is one); the interval is always the
// mixture's quantiles.

PredictiveDistribution constants(const std::vector<std::pair<double, double>>& location_weight) {
  PredictiveDistribution d;
  for (const auto& [location, weight] : location_weight) {
    PredictiveComponent c = component(constant_model(location), weight);
    c.noise_sd_absolute = 1.0;
    c.dof = 30.0;
    d.components.push_back(c);
  }
  return d;
}

void expect_mixture_interval(const PredictiveDistribution& d, const Prediction& p) {
  const double tail = (1.0 - p.level) / 2.0;
  EXPECT_NEAR(mixture_cdf(d, p.interval.low), tail, 1e-9);
  EXPECT_NEAR(mixture_cdf(d, p.interval.high), 1.0 - tail, 1e-9);
}

TEST(Predict, MixtureValueAndInterval) {
  {
    // 0.5 / 0.5: no single hypothesis is preferred; a tie of the weighted median, the midpoint.
    const PredictiveDistribution d = two_constants(0.5, 0.5);
    const Prediction p = predict(d, 7.0, 0.9);
    EXPECT_NEAR(p.value, 15.0, 1e-9) << "two components of equal weight give their midpoint";
    // A zero-width central interval is the mixture's median, 15 by symmetry.
    const Prediction median = predict(d, 7.0, 0.0);
    EXPECT_NEAR(median.interval.low, 15.0, 1e-9);
    EXPECT_NEAR(median.interval.high, 15.0, 1e-9);
    // Interval bounds are the mixture's 5% and 95% quantiles, symmetric around 15.
    expect_mixture_interval(d, p);
    EXPECT_NEAR(p.interval.low + p.interval.high, 30.0, 1e-8);
    EXPECT_LT(p.interval.low, 10.0);
    EXPECT_GT(p.interval.high, 20.0);
  }
  {
    // 0.8 / 0.2: the heavy component's location, exactly (not the mixture's median).
    const PredictiveDistribution d = two_constants(0.8, 0.2);
    const Prediction p = predict(d, 7.0, 0.9);
    EXPECT_DOUBLE_EQ(p.value, 10.0) << "the component holding 80% of the weight gives the value";
    expect_mixture_interval(d, p);
    EXPECT_LT(p.interval.low, 10.0);
    EXPECT_GT(p.interval.high, 20.0);
    // The mirror image.
    const PredictiveDistribution e = two_constants(0.2, 0.8);
    const Prediction q = predict(e, 7.0, 0.9);
    EXPECT_DOUBLE_EQ(q.value, 20.0);
    expect_mixture_interval(e, q);
    EXPECT_NEAR(p.interval.low + q.interval.high, 30.0, 1e-8);
    EXPECT_NEAR(p.interval.high + q.interval.low, 30.0, 1e-8);
  }
  {
    // Exactly half the weight on one component is no majority: a tie of the weighted median,
    // midway between it and the next law (15), which the component at 40 cannot drag the way it
    // drags the weighted mean (19); with 51% it is that component's location.
    const PredictiveDistribution d = constants({{10.0, 0.5}, {20.0, 0.3}, {40.0, 0.2}});
    const Prediction p = predict(d, 7.0, 0.9);
    EXPECT_NEAR(p.value, 15.0, 1e-9) << "half the weight is not a majority";
    EXPECT_DOUBLE_EQ(predict(constants({{10.0, 0.51}, {20.0, 0.29}, {40.0, 0.2}}), 7.0, 0.9).value,
                     10.0)
        << "a component holding more than half of the weight gives the value";
    expect_mixture_interval(d, p);
  }
  {
    // 0.3 / 0.3 / 0.4: no component holds half the weight; the law in the middle of the
    // posterior, 20 (not the heaviest 40, not the weighted mean 25, and not the mixture's median,
    // which each component's spread moves off every law).
    const PredictiveDistribution d = constants({{10.0, 0.3}, {20.0, 0.3}, {40.0, 0.4}});
    const Prediction p = predict(d, 7.0, 0.9);
    EXPECT_DOUBLE_EQ(p.value, 20.0) << "without a majority component the weighted median law";
    EXPECT_GT(predict(d, 7.0, 0.0).interval.low, 20.0) << "the mixture's median lies off it";
    expect_mixture_interval(d, p);
    EXPECT_LT(p.interval.low, 10.0);
    EXPECT_GT(p.interval.high, 40.0);
  }
}

TEST(Predict, AWideHypothesisMovesThePointByItsWeightAlone) {
  // 45% at 10 and 10% at 20, both well determined, and 45% at 40, poorly determined: the law in
  // the middle of the posterior, 20. Taken with its spread, the wide hypothesis would put much of
  // its mass below 20 and move the mixture's median there; widening it further does not move
  // the point.
  PredictiveDistribution d = constants({{10.0, 0.45}, {20.0, 0.1}, {40.0, 0.45}});
  d.components[2].noise_sd_absolute = 30.0;
  d.components[2].dof = 3.0;
  const Prediction p = predict(d, 7.0, 0.9);
  EXPECT_DOUBLE_EQ(p.value, 20.0);
  EXPECT_LT(predict(d, 7.0, 0.0).interval.low, 20.0) << "the mixture's median lies below it";
  d.components[2].noise_sd_absolute = 300.0;
  EXPECT_DOUBLE_EQ(predict(d, 7.0, 0.9).value, 20.0);
  EXPECT_GT(predict(d, 7.0, 0.9).interval.high, p.interval.high) << "the interval widens";
}

TEST(Predict, ThePointIgnoresLawsWithoutWeightAndTheOrderOfTheLaws) {
  // A law of weight 0 between two tied laws is no partner of the tie: the midpoint stays 15.
  EXPECT_DOUBLE_EQ(predict(constants({{10.0, 0.5}, {12.0, 0.0}, {20.0, 0.5}}), 7.0, 0.9).value,
                   15.0);
  // The same laws in any order, and with weights that do not sum to 1, give the same point.
  const std::vector<std::pair<double, double>> laws = {{40.0, 3.0}, {10.0, 3.0}, {20.0, 4.0}};
  std::vector<std::pair<double, double>> order = laws;
  std::sort(order.begin(), order.end());
  do {
    EXPECT_DOUBLE_EQ(predict(constants(order), 7.0, 0.9).value, 20.0);
  } while (std::next_permutation(order.begin(), order.end()));
}

TEST(Predict, ALawThatIsNotANumberCountsAsTheHighest) {
  // Wherever it is listed, a law evaluating to NaN (inf - inf far beyond the range) sorts last:
  // with 30% of the weight it does not move the median of the others.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const auto& laws : std::vector<std::vector<std::pair<double, double>>>{
           {{nan, 0.3}, {20.0, 0.4}, {30.0, 0.3}},
           {{20.0, 0.4}, {nan, 0.3}, {30.0, 0.3}},
           {{20.0, 0.4}, {30.0, 0.3}, {nan, 0.3}}}) {
    PredictiveDistribution d = constants(laws);
    for (auto& c : d.components) c.noise_sd_absolute = 0.0;
    EXPECT_DOUBLE_EQ(predicted_value(d, 7.0), 30.0);
  }
}

TEST(Predict, DegenerateMixtureHonoursWeights) {
  // Point masses: the interval bounds are weighted quantiles of the locations (the smallest
  // location whose cumulative weight reaches the probability).
  {
    // 80% at 3, 20% at 5: 5% quantile 3, 95% quantile 5; value 3 (the majority component).
    PredictiveDistribution d;
    d.components = {component(constant_model(3.0), 0.8), component(constant_model(5.0), 0.2)};
    const Prediction p = predict(d, 1.0, 0.9);
    EXPECT_DOUBLE_EQ(p.value, 3.0);
    EXPECT_DOUBLE_EQ(p.interval.low, 3.0);
    EXPECT_DOUBLE_EQ(p.interval.high, 5.0);
    // A central 50% interval: 25% and 75% quantiles are both 3.
    const Prediction half = predict(d, 1.0, 0.5);
    EXPECT_DOUBLE_EQ(half.interval.low, 3.0);
    EXPECT_DOUBLE_EQ(half.interval.high, 3.0);
  }
  {
    // 98% at 5: every central 90% quantile is 5.
    PredictiveDistribution d;
    d.components = {component(constant_model(3.0), 0.02), component(constant_model(5.0), 0.98)};
    const Prediction p = predict(d, 1.0, 0.9);
    EXPECT_DOUBLE_EQ(p.value, 5.0);
    EXPECT_DOUBLE_EQ(p.interval.low, 5.0) << "the 5% quantile ignores the 2% at 3";
    EXPECT_DOUBLE_EQ(p.interval.high, 5.0);
  }
  {
    // Equal weights at 3 and 5: the interval spans them; the value is a tie of the weighted
    // median, the midpoint of the two laws.
    PredictiveDistribution d;
    d.components = {component(constant_model(3.0), 0.5), component(constant_model(5.0), 0.5)};
    const Prediction p = predict(d, 1.0, 0.9);
    EXPECT_DOUBLE_EQ(p.value, 4.0);
    EXPECT_DOUBLE_EQ(p.interval.low, 3.0);
    EXPECT_DOUBLE_EQ(p.interval.high, 5.0);
  }
  {
    // 30% at 1, 30% at 2, 40% at 4, listed out of order: the weighted median 2 (cumulative
    // weights 0.3, 0.6, 1.0), not the mean 2.5.
    PredictiveDistribution d;
    d.components = {component(constant_model(4.0), 0.4), component(constant_model(1.0), 0.3),
                    component(constant_model(2.0), 0.3)};
    const Prediction p = predict(d, 1.0, 0.9);
    EXPECT_DOUBLE_EQ(p.value, 2.0);
    EXPECT_DOUBLE_EQ(p.interval.low, 1.0);
    EXPECT_DOUBLE_EQ(p.interval.high, 4.0);
    // 45% and 55% quantiles: both 2 (cumulative weights 0.3, 0.6, 1.0).
    const Prediction narrow = predict(d, 1.0, 0.1);
    EXPECT_DOUBLE_EQ(narrow.interval.low, 2.0);
    EXPECT_DOUBLE_EQ(narrow.interval.high, 2.0);
  }
}

TEST(Predict, UnnormalisedWeightsActLikeNormalisedOnes) {
  // models.json is read back without normalising the weights; weights {2, 2} describe the same
  // mixture as {0.5, 0.5}, {8, 2} the same as {0.8, 0.2}, {3, 3, 4} the same as {0.3, 0.3, 0.4}.
  const auto expect_same = [](const PredictiveDistribution& normalised,
                              const PredictiveDistribution& scaled, double value) {
    for (double level : {0.5, 0.9}) {
      SCOPED_TRACE(level);
      const Prediction a = predict(normalised, 1.0, level);
      const Prediction b = predict(scaled, 1.0, level);
      EXPECT_NEAR(a.value, value, 1e-9);
      EXPECT_NEAR(b.value, a.value, 1e-6);
      EXPECT_NEAR(b.interval.low, a.interval.low, 1e-6);
      EXPECT_NEAR(b.interval.high, a.interval.high, 1e-6);
      expect_mixture_interval(scaled, b);
    }
  };
  {
    SCOPED_TRACE("{2, 2}");
    expect_same(two_constants(0.5, 0.5), two_constants(2.0, 2.0), 15.0);
  }
  {
    SCOPED_TRACE("{8, 2}");
    expect_same(two_constants(0.8, 0.2), two_constants(8.0, 2.0), 10.0);
  }
  {
    SCOPED_TRACE("{3, 3, 4}");
    const PredictiveDistribution d = constants({{10.0, 0.3}, {20.0, 0.3}, {40.0, 0.4}});
    expect_same(d, constants({{10.0, 3.0}, {20.0, 3.0}, {40.0, 4.0}}), 20.0);
  }
  {
    // Point masses with weights {8, 2}: weighted quantiles of the locations.
    PredictiveDistribution d;
    d.components = {component(constant_model(3.0), 8.0), component(constant_model(5.0), 2.0)};
    const Prediction p = predict(d, 1.0, 0.9);
    EXPECT_DOUBLE_EQ(p.value, 3.0);
    EXPECT_DOUBLE_EQ(p.interval.low, 3.0);
    EXPECT_DOUBLE_EQ(p.interval.high, 5.0);
  }
}

// --- find_budget_crossing -------------------------------------------------------------------

Model quadratic(double c2) {
  Model m;
  m.terms.push_back({c2, {2.0, 0}});
  return m;
}

/// Smallest whole t in [from, limit] with f(t) > budget, by brute force.
std::optional<double> brute_force(const std::function<double(double)>& f, double budget,
                                  double from, double limit) {
  for (double t = std::ceil(from); t <= limit; t += 1.0) {
    if (f(t) > budget) return t;
  }
  return std::nullopt;
}

TEST(BudgetCrossing, MonotoneModelWithoutUncertainty) {
  PredictiveDistribution d;
  d.components.push_back(component(quadratic(2.0)));
  // 2 t^2 > 199: t = 10 (2 * 81 = 162, 2 * 100 = 200).
  BudgetCrossing c = find_budget_crossing(d, 199.0, 0.9, 1.0, 1e6);
  EXPECT_EQ(c.budget, 199.0);
  EXPECT_EQ(c.search_limit, 1e6);
  ASSERT_TRUE(c.threads.has_value());
  EXPECT_EQ(*c.threads, 10.0);
  ASSERT_TRUE(c.threads_early.has_value());
  ASSERT_TRUE(c.threads_late.has_value());
  EXPECT_EQ(*c.threads_early, 10.0);
  EXPECT_EQ(*c.threads_late, 10.0);
  // Exceeding is strict: 2 * 10^2 = 200 is not over 200, t = 11 is.
  c = find_budget_crossing(d, 200.0, 0.9, 1.0, 1e6);
  ASSERT_TRUE(c.threads.has_value());
  EXPECT_EQ(*c.threads, 11.0);
}

TEST(BudgetCrossing, LargeCrossingIsExact) {
  PredictiveDistribution d;
  d.components.push_back(component(linear(1.0, 1.0)));
  // 1 + t > 100000.5 first at t = 100000.
  const BudgetCrossing c = find_budget_crossing(d, 100000.5, 0.9, 1.0, 1 << 20);
  ASSERT_TRUE(c.threads.has_value());
  EXPECT_EQ(*c.threads, 100000.0);
}

TEST(BudgetCrossing, IntervalGivesEarlyAndLateCrossings) {
  PredictiveDistribution d;
  PredictiveComponent c = component(quadratic(2.0));
  c.noise_sd_absolute = 50.0;
  c.dof = 4.0;
  d.components.push_back(c);
  // q = t(4) 95% quantile = 2.1318467863266499; half width 106.59.
  // value 2t^2 > 500: t = 16; upper 2t^2 + 106.59 > 500: t = 15; lower 2t^2 - 106.59 > 500: t = 18.
  const BudgetCrossing crossing = find_budget_crossing(d, 500.0, 0.9, 1.0, 1e6);
  ASSERT_TRUE(crossing.threads && crossing.threads_early && crossing.threads_late);
  EXPECT_EQ(*crossing.threads, 16.0);
  EXPECT_EQ(*crossing.threads_early, 15.0);
  EXPECT_EQ(*crossing.threads_late, 18.0);
  // Cross-check with a brute-force scan of predict().
  const auto value = [&](double t) { return predict(d, t, 0.9).value; };
  const auto high = [&](double t) { return predict(d, t, 0.9).interval.high; };
  const auto low = [&](double t) { return predict(d, t, 0.9).interval.low; };
  EXPECT_EQ(crossing.threads, brute_force(value, 500.0, 1.0, 100.0));
  EXPECT_EQ(crossing.threads_early, brute_force(high, 500.0, 1.0, 100.0));
  EXPECT_EQ(crossing.threads_late, brute_force(low, 500.0, 1.0, 100.0));
}

TEST(BudgetCrossing, SearchRange) {
  PredictiveDistribution d;
  d.components.push_back(component(quadratic(2.0)));
  // Already over at the first thread count searched.
  BudgetCrossing c = find_budget_crossing(d, 500.0, 0.9, 20.0, 1e6);
  ASSERT_TRUE(c.threads.has_value());
  EXPECT_EQ(*c.threads, 20.0);
  // A fractional start is rounded up to a whole thread count.
  c = find_budget_crossing(d, 1.0, 0.9, 2.5, 1e6);
  ASSERT_TRUE(c.threads.has_value());
  EXPECT_EQ(*c.threads, 3.0);
  // Never exceeded within the limit: 2 * 10^2 = 200 < 500.
  c = find_budget_crossing(d, 500.0, 0.9, 1.0, 10.0);
  EXPECT_FALSE(c.threads.has_value());
  EXPECT_FALSE(c.threads_early.has_value());
  EXPECT_FALSE(c.threads_late.has_value());
  EXPECT_EQ(c.search_limit, 10.0);
  // Crossing exactly at the limit is found: 2 * 16^2 = 512 > 500.
  c = find_budget_crossing(d, 500.0, 0.9, 1.0, 16.0);
  ASSERT_TRUE(c.threads.has_value());
  EXPECT_EQ(*c.threads, 16.0);
  // Limit below the start: nothing searched.
  c = find_budget_crossing(d, 1.0, 0.9, 8.0, 4.0);
  EXPECT_FALSE(c.threads.has_value());
  // A decreasing model never crosses a budget above its start value.
  PredictiveDistribution falling;
  Model m;
  m.terms.push_back({1000.0, {-1.0, 0}});
  falling.components.push_back(component(m));
  c = find_budget_crossing(falling, 1500.0, 0.9, 1.0, 1 << 20);
  EXPECT_FALSE(c.threads.has_value());
}

TEST(BudgetCrossing, NonMonotoneModel) {
  // 100 - 20 t + t^2 dips to 0 at t = 10, then rises: first over 90 at t = 20 (t = 19: 81).
  Model m;
  m.constant = 100.0;
  m.terms.push_back({-20.0, {1.0, 0}});
  m.terms.push_back({1.0, {2.0, 0}});
  PredictiveDistribution d;
  d.components.push_back(component(m));
  const BudgetCrossing c = find_budget_crossing(d, 90.0, 0.9, 1.0, 1e6);
  ASSERT_TRUE(c.threads.has_value());
  EXPECT_EQ(*c.threads, 20.0);
}

}  // namespace
}  // namespace ompscale::modeler

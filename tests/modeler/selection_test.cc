// The selection core, directly: hypotheses scored against the noise, posterior weights, the
// growth prior, model-form drift, uniform weights, the strategies side by side, the options'
// validation and the Student t cdf the predictions rest on.

#include "modeler/selection/selection.h"

#include <gtest/gtest.h>

#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <functional>
#include <numeric>
#include <random>
#include <vector>

#include "modeler/numerics/student_t.h"
#include "modeler/prediction/predict.h"
#include "modeler/selection/deviations.h"
#include "modeler/selection/strategy.h"

namespace ompscale::modeler {
namespace {

Points points_of(const std::function<double(double)>& law, const std::vector<double>& threads,
                 int reps, double noise, Aggregation aggregation = Aggregation::kMean) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<Sample> samples;
  for (double t : threads) {
    for (int r = 0; r < reps; ++r) samples.push_back({t, law(t) * (1.0 + noise * u(rng))});
  }
  return summarize(Kernel::from_samples({"k"}, samples), aggregation);
}

const std::vector<double> kSelectionThreads = {1, 2, 4, 8, 16, 32, 64};
const auto kSqrtLaw = [](double t) { return 3.0 + 2.0 * std::sqrt(t); };

bool is_sqrt(const Model& m) {
  return m.terms.size() == 1 && m.terms[0].shape.exponent == 0.5 &&
         m.terms[0].shape.log_exponent == 0;
}

TEST(ScoreHypotheses, TheGeneratingLawScoresBestAndHoldsMostOfThePosterior) {
  const Points p = points_of(kSqrtLaw, kSelectionThreads, 20, 0.01);
  const ModelerOptions options;
  const SelectionOutcome sel = score_hypotheses(p, space_for(p, options), options);
  EXPECT_TRUE(is_sqrt(sel.candidates[sel.chosen].model));
  for (const Candidate& c : sel.candidates) EXPECT_GE(c.score, sel.candidates[sel.chosen].score);
  EXPECT_NEAR(std::accumulate(sel.posterior.begin(), sel.posterior.end(), 0.0), 1.0, 1e-12);
  EXPECT_GT(sel.posterior[sel.chosen], 0.5);
  EXPECT_TRUE(sel.candidates[0].shapes.empty());  // the constant model comes first
}

TEST(ScoreHypotheses, HeldOutErrorRanksTheCrossValidatedStrategy) {
  const Points p = points_of(kSqrtLaw, kSelectionThreads, 20, 0.01);
  ModelerOptions options;
  options.strategy = Strategy::kCrossValidated;
  const SelectionOutcome sel = score_hypotheses(p, space_for(p, options), options);
  for (const Candidate& c : sel.candidates) EXPECT_DOUBLE_EQ(c.score, c.loo_smape);
  options.held_out_error = HeldOutError::kRss;
  const SelectionOutcome rss = score_hypotheses(p, space_for(p, options), options);
  for (const Candidate& c : rss.candidates) EXPECT_DOUBLE_EQ(c.score, c.loo_rss);
}

TEST(ScoreHypotheses, GrowthPriorGivesNoGrowthAThirdOfTheBelief) {
  // 2 ln(H / 2) for H term hypotheses: exp(-g / 2) * H = 2, i.e. terms 2/3, constant 1/3.
  for (std::size_t h : {4u, 38u, 117u}) {
    const double g = growth_prior_penalty(h);
    EXPECT_NEAR(std::exp(-g / 2.0) * static_cast<double>(h), 2.0, 1e-12);
  }
  EXPECT_EQ(growth_prior_penalty(1), 0.0);
}

TEST(ForwardDrift, NoneForALawThatHoldsSomeForOneThatBends) {
  const ModelerOptions options;
  const Points holds = points_of(kSqrtLaw, kSelectionThreads, 20, 0.001);
  const SelectionOutcome a = score_hypotheses(holds, space_for(holds, options), options);
  const double holding = forward_drift(a.points, a.candidates[a.chosen], a.noise_scale);
  EXPECT_LT(holding, 0.005);
  // Cost per thread that stops falling: the top of the range bends away from every law.
  const Points bends = points_of([](double t) { return 100.0 / t + (t >= 16 ? 0.2 * t : 0.0); },
                                 kSelectionThreads, 20, 0.001);
  const SelectionOutcome b = score_hypotheses(bends, space_for(bends, options), options);
  const double bending = forward_drift(b.points, b.candidates[b.chosen], b.noise_scale);
  EXPECT_GT(bending, 0.02);
  EXPECT_GT(bending, 10.0 * holding);
}

TEST(Weighting, UniformWeightsAreEqualAndTheNoiseAbsolute) {
  const Points p = points_of(kSqrtLaw, kSelectionThreads, 20, 0.01);
  const Points u = with_weighting(p, Weighting::kUniform);
  EXPECT_TRUE(u.uniform);
  EXPECT_FALSE(u.noise_from_repetitions);
  for (double w : u.weights()) EXPECT_EQ(w, 1.0);
  EXPECT_EQ(relative_noise_variance(u), 0.0);
  EXPECT_EQ(absolute_noise_variance(u), 1.0);
  EXPECT_EQ(with_weighting(p, Weighting::kNoise).weights(), p.weights());
}

TEST(Strategies, CrossValidatedPredictsWithTheChosenModelAlone) {
  const Points p = points_of(kSqrtLaw, kSelectionThreads, 20, 0.02);
  ModelerOptions options;
  options.strategy = Strategy::kCrossValidated;
  options.weighting = Weighting::kUniform;
  const ClassModel m = fit_with_strategy(p, options);
  ASSERT_EQ(m.predictive.components.size(), 1u);
  EXPECT_DOUBLE_EQ(predicted_value(m.predictive, 256.0), m.model.evaluate(256.0));
  const Prediction at = predict(m.predictive, 256.0, 0.9);
  EXPECT_LT(at.interval.low, at.value);
  EXPECT_GT(at.interval.high, at.value);
  EXPECT_GT(m.predictive.components[0].noise_sd_absolute, 0.0);  // absolute noise, uniform fit
}

TEST(Strategies, EachStrategyFindsAnExactLaw) {
  const Points p = points_of(kSqrtLaw, kSelectionThreads, 5, 0.0);
  for (Strategy s : {Strategy::kNoiseAware, Strategy::kCrossValidated, Strategy::kExtrap}) {
    SCOPED_TRACE(static_cast<int>(s));
    ModelerOptions options = s == Strategy::kExtrap ? ModelerOptions::extrap() : ModelerOptions{};
    options.strategy = s;
    const ClassModel m = fit_with_strategy(p, options);
    EXPECT_TRUE(is_sqrt(m.model)) << m.model.to_string();
    EXPECT_NEAR(predicted_value(m.predictive, 100.0), kSqrtLaw(100.0), 1e-6);
  }
}

TEST(ModelerOptionsValidate, NamesTheOptionThatIsWrong) {
  EXPECT_EQ(ModelerOptions{}.validate(), "");
  EXPECT_EQ(ModelerOptions::extrap().validate(), "");
  auto why = [](auto change) {
    ModelerOptions o;
    change(o);
    return o.validate();
  };
  EXPECT_EQ(why([](ModelerOptions& o) { o.confidence = 1.5; }).rfind("confidence 1.5", 0), 0u);
  EXPECT_EQ(why([](ModelerOptions& o) { o.law_change_per_doubling = -0.1; }).rfind("law-change", 0),
            0u);
  EXPECT_EQ(why([](ModelerOptions& o) { o.folds = 1; }).rfind("folds 1", 0), 0u);
  EXPECT_EQ(why([](ModelerOptions& o) { o.predict_at = {0.0}; }).rfind("predict 0", 0), 0u);
  EXPECT_EQ(why([](ModelerOptions& o) { o.weighting = Weighting::kUniform; }).rfind("weighting", 0),
            0u);
  ModelerOptions extrap = ModelerOptions::extrap();
  extrap.loss = Loss::kHuber;
  EXPECT_EQ(extrap.validate().rfind("loss", 0), 0u);
}

TEST(StudentT, FiniteSeriesAgreesWithBoost) {
  using Boost = boost::math::students_t_distribution<double>;
  for (double dof : {1.0, 2.0, 3.0, 5.0, 8.0, 17.0, 64.0, 65.0, 2.5, 500.0}) {
    for (double x = -40.0; x <= 40.0; x += 0.37) {
      const double expected = boost::math::cdf(Boost(dof), x);
      EXPECT_NEAR(student_t_cdf(x, dof), expected, 1e-14) << "dof " << dof << " x " << x;
      const double tail = std::min(expected, 1.0 - expected);
      if (tail > 1e-6) {
        EXPECT_NEAR(student_t_cdf(x, dof) / expected, 1.0, 1e-9);
      }
    }
  }
  EXPECT_EQ(student_t_cdf(INFINITY, 3.0), 1.0);
  EXPECT_EQ(student_t_cdf(-INFINITY, 3.0), 0.0);
  EXPECT_TRUE(std::isnan(student_t_cdf(NAN, 3.0)));
}

}  // namespace
}  // namespace ompscale::modeler

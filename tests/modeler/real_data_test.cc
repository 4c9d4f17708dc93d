// The default preset on what real measurements have and generated ones lack: wild repetitions,
// deviations every repetition of a thread count shares, strong scaling, a one-thread point on
// another code path, costs that must not be extrapolated through zero (docs/methods.md, "Real
// measurements").

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "modeler/fit.h"

namespace ompscale::modeler {
namespace {

/// `reps` repetitions of f(t) * shared(t) at each t, each times (1 + noise * U[-1, 1)).
Kernel measure(const std::function<double(double)>& f, const std::vector<double>& threads, int reps,
               double noise, const std::function<double(double)>& shared = {},
               std::uint64_t seed = 1) {
  std::mt19937_64 rng(seed);
  std::vector<Sample> samples;
  for (double t : threads) {
    const double factor = shared ? shared(t) : 1.0;
    for (int r = 0; r < reps; ++r) {
      const double u = static_cast<double>(rng() >> 11) * 0x1.0p-52 - 1.0;
      samples.push_back({t, f(t) * factor * (1.0 + noise * u)});
    }
  }
  return Kernel::from_samples({"k"}, std::move(samples));
}

ModelerOptions predicting(std::vector<double> at) {
  ModelerOptions options;
  options.predict_at = std::move(at);
  return options;
}

const ClassModel& only(const KernelResult& r) {
  EXPECT_EQ(r.models.size(), 1u);
  return r.models.front();
}

bool mentions(const ClassModel& m, const std::string& text) {
  for (const std::string& w : m.warnings) {
    if (w.find(text) != std::string::npos) return true;
  }
  return false;
}

const std::vector<double> kRealThreads = {2, 4, 8, 16, 32, 64};

TEST(RealData, WrappedTimerInOneRepetitionDoesNotDecideTheModel) {
  // 1 + 0.5 t, 9 repetitions with 2% noise; one repetition at t = 16 reads 1.8e15 (a wrapped
  // timer, as in a public barrier set).
  const auto law = [](double t) { return 1.0 + 0.5 * t; };
  const Kernel clean = measure(law, kRealThreads, 9, 0.02);
  std::vector<Sample> samples;
  for (std::size_t i = 0; i < clean.size(); ++i) {
    const auto reps = clean.repetitions(i);
    for (std::size_t r = 0; r < reps.size(); ++r) {
      const bool wrapped = clean.param(i) == 16.0 && r == 4;
      samples.push_back({clean.param(i), wrapped ? 1.8e15 : reps[r]});
    }
  }
  const Kernel wild = Kernel::from_samples({"k"}, samples);
  const ClassModel a = only(fit_kernel(clean, predicting({128})));
  const ClassModel b = only(fit_kernel(wild, predicting({128})));
  ASSERT_EQ(b.model.terms.size(), a.model.terms.size()) << b.model.to_string();
  EXPECT_EQ(b.model.terms[0].shape, a.model.terms[0].shape) << b.model.to_string();
  EXPECT_NEAR(b.model.terms[0].coefficient, a.model.terms[0].coefficient, 0.01);
  EXPECT_NEAR(b.predictions[0].value, law(128), 0.05 * law(128));
  EXPECT_LT(b.predictions[0].interval.high, 2.0 * law(128)) << "the interval stays finite";
}

TEST(RealData, ThreeRepetitionsWithOneWildValueStayRobust) {
  // With 3 repetitions the trimmed mean still drops one value on each side: the median.
  std::vector<Sample> samples;
  for (double t : kRealThreads) {
    const double v = 2.0 + 0.1 * t;
    samples.insert(samples.end(), {{t, v * 0.99}, {t, v}, {t, t == 8.0 ? 1e9 : v * 1.01}});
  }
  const ClassModel m = only(fit_kernel(Kernel::from_samples({"k"}, samples), predicting({128})));
  EXPECT_NEAR(m.predictions[0].value, 2.0 + 0.1 * 128, 0.5);
}

TEST(RealData, FallingTimesGetNegativeExponentsWithoutAFlag) {
  // Strong scaling: 0.5 + 8 / t (Amdahl), 1% noise.
  const ClassModel m = only(
      fit_kernel(measure([](double t) { return 0.5 + 8.0 / t; }, {2, 3, 4, 6, 8, 12, 16}, 5, 0.01),
                 predicting({64})));
  ASSERT_EQ(m.model.terms.size(), 1u) << m.model.to_string();
  EXPECT_EQ(m.model.terms[0].shape.exponent, -1.0) << m.model.to_string();
  EXPECT_EQ(m.growth, GrowthClass::kDecreasing);
  EXPECT_NEAR(m.predictions[0].value, 0.5 + 8.0 / 64, 0.02);
  // Without the automatic extension the paper's space has no falling shape but logs.
  ModelerOptions fixed = predicting({64});
  fixed.negative_exponents_when_falling = false;
  const ClassModel f = only(fit_kernel(
      measure([](double t) { return 0.5 + 8.0 / t; }, {2, 3, 4, 6, 8, 12, 16}, 5, 0.01), fixed));
  EXPECT_NE(f.model.to_string(), m.model.to_string());
}

TEST(RealData, OneThreadPointOnAnotherCodePathIsLeftOut) {
  // 0.5 + 8 / t from 2 threads on; one thread runs the tasks at once and takes 1.0, not 8.5.
  const auto law = [](double t) { return t == 1.0 ? 1.0 : 0.5 + 8.0 / t; };
  const ClassModel m =
      only(fit_kernel(measure(law, {1, 2, 3, 4, 5, 6, 8, 10}, 11, 0.005), predicting({16})));
  EXPECT_TRUE(mentions(m, "t=1 left out of the fit")) << m.model.to_string();
  ASSERT_EQ(m.model.terms.size(), 1u) << m.model.to_string();
  EXPECT_EQ(m.model.terms[0].shape.exponent, -1.0) << m.model.to_string();
  EXPECT_NEAR(m.predictions[0].value, 0.5 + 8.0 / 16, 0.02);
  EXPECT_EQ(m.points.size(), 8u) << "the point is still reported";
}

TEST(RealData, OneThreadPointThatFollowsTheLawIsKept) {
  // A barrier-like cost 0.3 log2(t) + 0.01 with 10% deviations shared by all repetitions of a
  // thread count: t = 1 (0.01) is far below the others but on the law.
  const auto law = [](double t) { return 0.01 + 0.3 * std::log2(t); };
  const auto shared = [](double t) { return 1.0 + 0.1 * std::sin(3.0 * t); };
  const ClassModel m =
      only(fit_kernel(measure(law, {1, 2, 3, 4, 5, 6, 8}, 50, 0.05, shared), predicting({16})));
  EXPECT_FALSE(mentions(m, "left out")) << m.model.to_string();
}

TEST(RealData, SharedDeviationsWidenTheIntervals) {
  // 1 + 0.2 t with +-8% deviations that all 200 repetitions of a thread count share and 0.5%
  // noise per repetition: the repetitions alone would make the intervals 20 times too narrow.
  const auto law = [](double t) { return 1.0 + 0.2 * t; };
  const auto shared = [](double t) { return 1.0 + 0.08 * std::sin(2.3 * t); };
  const std::vector<double> threads = {2, 3, 4, 5, 6, 8, 10, 12, 14, 16};
  const ClassModel m =
      only(fit_kernel(measure(law, threads, 200, 0.005, shared), predicting({16})));
  const Prediction& p = m.predictions[0];
  const double half_width = (p.interval.high - p.interval.low) / 2.0 / p.value;
  EXPECT_GT(half_width, 0.05) << "the interval must hold a new point's shared deviation";
  EXPECT_LT(half_width, 0.5);
  EXPECT_GT(m.predictive.components[0].noise_sd_relative, 0.03);
}

TEST(RealData, ModelFormUncertaintyGrowsBeyondTheMeasuredRange) {
  const auto law = [](double t) { return 1.0 + 0.2 * t; };
  const auto shared = [](double t) { return 1.0 + 0.08 * std::sin(2.3 * t); };
  const std::vector<double> threads = {2, 3, 4, 5, 6, 8, 10, 12, 14, 16};
  const ClassModel m =
      only(fit_kernel(measure(law, threads, 200, 0.005, shared), predicting({16, 64, 256})));
  const auto relative_width = [&](std::size_t i) {
    const Prediction& p = m.predictions[i];
    return (p.interval.high - p.interval.low) / p.value;
  };
  EXPECT_LT(relative_width(0), relative_width(1));
  EXPECT_LT(relative_width(1), relative_width(2));
  EXPECT_EQ(m.predictive.components[0].range_low, 2.0);
  EXPECT_EQ(m.predictive.components[0].range_high, 16.0);
}

TEST(RealData, ALawBendingAtTheTopOfTheRangeWidensTheInterval) {
  // Strong scaling whose efficiency starts to decay in the top quarter of the measured threads
  // (cores begin to be shared): the law of the lower threads still predicts the top from the
  // middle of the range, but the forward errors from its edge show the bend, and the interval
  // must hold where the bend leads.
  const auto law = [](double t) {
    const double doublings_past_knee = std::max(0.0, std::log2(t / 14.0));
    return (2.0 + 100.0 / t) * (1.0 + 0.1 * doublings_past_knee);
  };
  std::vector<double> threads;
  for (double t = 2; t <= 20; ++t) threads.push_back(t);
  ModelerOptions options = predicting({22, 24, 26});
  options.law_change_per_doubling = 0.0;  // what the measured points show, nothing assumed
  const ClassModel m = only(fit_kernel(measure(law, threads, 10, 0.005), options));
  for (const Prediction& p : m.predictions) {
    EXPECT_GE(p.interval.high, law(p.param)) << "t=" << p.param << " " << m.model.to_string();
    EXPECT_LE(p.interval.low, law(p.param)) << "t=" << p.param;
  }
  EXPECT_GT(m.predictive.components[0].drift_sd_relative, 0.0);
}

TEST(RealData, AChangeOfLawNoMeasuredPointShowsIsHeldByTheDefaultInterval) {
  // Strong scaling that is perfectly c/t up to the 16 measured threads, then loses 10% of its
  // efficiency per doubling (threads begin to share cores): nothing in the measured points shows
  // it, the law predicts 32 threads 10% low. The default allowance for a change of law beyond
  // the range holds it; trusting the measured law there does not.
  const auto law = [](double t) {
    return 1000.0 / t * (1.0 + 0.1 * std::max(0.0, std::log2(t / 16.0)));
  };
  const Kernel k = measure(law, {2, 4, 6, 8, 10, 12, 14, 16}, 10, 0.005);
  const ClassModel held = only(fit_kernel(k, predicting({16, 24, 32})));
  ModelerOptions trusting = predicting({16, 24, 32});
  trusting.law_change_per_doubling = 0.0;
  const ClassModel missed = only(fit_kernel(k, trusting));
  for (std::size_t i = 1; i < 3; ++i) {
    const double t = held.predictions[i].param;
    EXPECT_GE(held.predictions[i].interval.high, law(t)) << "t=" << t;
    EXPECT_LE(held.predictions[i].interval.low, law(t)) << "t=" << t;
    EXPECT_LT(missed.predictions[i].interval.high, law(t)) << "t=" << t;
    EXPECT_EQ(held.predictions[i].value, missed.predictions[i].value) << "the point stays";
  }
  // Inside the measured range nothing changes.
  EXPECT_EQ(held.predictions[0].interval.low, missed.predictions[0].interval.low);
  EXPECT_EQ(held.predictions[0].interval.high, missed.predictions[0].interval.high);
  EXPECT_EQ(held.predictive.components[0].law_change_sd_relative,
            ModelerOptions{}.law_change_per_doubling);
}

TEST(RealData, ACostAroundZeroHasNoRelativeDrift) {
  // The minimum of an uncontended lock after the timer's overhead is taken off: a few ticks either
  // side of zero at every thread count. A relative model-form error means nothing there (the
  // forward fits predict values near zero); the interval must stay of the values' size.
  const auto shared = [](double t) { return std::sin(2.3 * t); };
  const std::vector<double> threads = {1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16};
  const ClassModel m = only(
      fit_kernel(measure([](double) { return 1e-4; }, threads, 50, 0.3, shared), predicting({64})));
  ASSERT_FALSE(m.predictive.components.empty());
  EXPECT_EQ(m.predictive.components[0].drift_sd_relative, 0.0);
  const Prediction& p = m.predictions[0];
  EXPECT_LT(p.interval.high - p.interval.low, 1e-2) << p.interval.low << " " << p.interval.high;
}

TEST(RealData, PositiveCostsAreNotExtrapolatedThroughZero) {
  // A cost that steps down at 8 threads (1.25 to 0.85): no hypothesis that turns negative
  // before the budget search limit, so no negative prediction.
  const auto law = [](double t) { return t < 8.0 ? 1.25 : 0.85; };
  const ClassModel m = only(fit_kernel(measure(law, {1, 2, 4, 8}, 100, 0.02), predicting({64})));
  EXPECT_GT(m.predictions[0].value, 0.0) << m.model.to_string();
  EXPECT_GT(m.predictions[0].interval.low, 0.0) << m.model.to_string();
  for (const PredictiveComponent& c : m.predictive.components) {
    EXPECT_GT(c.model.evaluate(1024.0), 0.0) << c.model.to_string();
  }
}

}  // namespace
}  // namespace ompscale::modeler

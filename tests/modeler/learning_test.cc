// Learning from the input (modeler/learning/): backtests, the choice of a way of modeling, the
// calibrated change-of-law allowance, and what is said about them.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "modeler/learning/backtests.h"
#include "modeler/learning/learn_from_input.h"
#include "modeler/multi/multi_fit.h"
#include "modeler/prediction/predict.h"

namespace ompscale::modeler {
namespace {

using ThreadLaw = std::function<double(double)>;

/// `reps` repetitions of law(t) * (1 + noise * U[-1, 1)) at each t.
Kernel measure(const std::string& name, const ThreadLaw& law, const std::vector<double>& threads,
               int reps, double noise, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<Sample> samples;
  for (double t : threads) {
    for (int r = 0; r < reps; ++r) samples.push_back({t, law(t) * (1.0 + noise * u(rng))});
  }
  return Kernel::from_samples({name}, std::move(samples));
}

Dataset input_of(const std::vector<ThreadLaw>& laws, const std::vector<double>& threads, int reps,
                 double noise, unsigned seed = 1) {
  std::mt19937_64 rng(seed);
  Dataset data;
  data.key_columns = {"kernel"};
  for (std::size_t k = 0; k < laws.size(); ++k)
    data.kernels.push_back(measure(fmt::format("k{}", k), laws[k], threads, reps, noise, rng));
  return data;
}

const std::vector<double> kLinear = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};

// --- backtests -------------------------------------------------------------------------------

TEST(Backtests, HalfTheRangeAndAllButTheLargestCount) {
  const Dataset data = input_of({[](double t) { return 2.0 + t; }}, kLinear, 5, 0.0);
  const std::vector<Backtest> b = make_backtests(data);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].training.size(), 6u);
  EXPECT_FALSE(b[0].edge);
  EXPECT_EQ(b[0].t, (std::vector<double>{7, 8, 9, 10, 11, 12}));
  EXPECT_DOUBLE_EQ(b[0].measured.front(), 9.0);
  EXPECT_DOUBLE_EQ(b[0].doublings.back(), std::log2(12.0 / 6.0));
  EXPECT_EQ(b[1].training.size(), 11u);
  EXPECT_TRUE(b[1].edge);
  EXPECT_EQ(b[1].t, (std::vector<double>{12}));
}

TEST(Backtests, MedianOfTheRepetitionsIsWhatIsPredicted) {
  // One wild repetition at the held-out count does not move what the backtest scores against.
  Dataset data = input_of({[](double t) { return t; }}, {1, 2, 4, 8}, 1, 0.0);
  std::vector<Sample> samples;
  for (double t : {1.0, 2.0, 4.0}) samples.push_back({t, t});
  for (double v : {8.0, 8.0, 8.0, 1e15}) samples.push_back({8.0, v});
  data.kernels = {Kernel::from_samples({"k"}, samples)};
  const std::vector<Backtest> b = make_backtests(data);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_DOUBLE_EQ(b[0].measured.front(), 8.0);
}

TEST(Backtests, KernelsTooSmallOrAtZeroGiveNone) {
  Dataset data = input_of({[](double t) { return t; }}, {1, 2, 4}, 3, 0.0);
  EXPECT_TRUE(make_backtests(data).empty());  // three counts: nothing left to predict
  data = input_of({[](double t) { return t < 5 ? 1.0 : 0.0; }}, {1, 2, 4, 8}, 3, 0.0);
  EXPECT_TRUE(make_backtests(data).empty());  // the held-out median is 0: no relative error
}

TEST(Backtests, AnEvenSampleOfAtMostTheirNumberOfKernels) {
  std::vector<ThreadLaw> laws(50, [](double t) { return 1.0 + t; });
  const Dataset data = input_of(laws, {1, 2, 4, 8}, 2, 0.01);
  const std::vector<Backtest> b = make_backtests(data, {.max_kernels = 10});
  ASSERT_EQ(b.size(), 10u);
  EXPECT_EQ(b[0].kernel, 0u);
  EXPECT_EQ(b[1].kernel, 5u);
  EXPECT_EQ(b[9].kernel, 45u);
}

// Kernels too short to backtest (a sparse design's lines) take no places in the sample: ten
// long kernels among forty short ones are all backtested.
TEST(Backtests, ShortKernelsTakeNoPlaceInTheSample) {
  std::vector<ThreadLaw> laws(50, [](double t) { return 1.0 + t; });
  Dataset data = input_of(laws, {1, 2, 4}, 2, 0.01);
  const Dataset long_ones = input_of(std::vector<ThreadLaw>(10, laws[0]), kLinear, 2, 0.01);
  for (std::size_t i = 0; i < 10; ++i) data.kernels[5 * i] = long_ones.kernels[i];
  const std::vector<Backtest> b = make_backtests(data, {.max_kernels = 10});
  std::set<std::size_t> kernels;
  for (const Backtest& one : b) kernels.insert(one.kernel);
  EXPECT_EQ(kernels.size(), 10u);
}

// --- the choice ------------------------------------------------------------------------------

/// Costs whose single thread takes another code path (a fraction of the cost: nothing to
/// share), then grow as a + b log2(t) with 3% relative noise; 100 repetitions at 1, 2, 4 and 8
/// threads. Relative weights let the tiny one-thread value pull every fit (too few points to
/// leave it out); absolute errors follow the larger counts, where the predictions start.
Dataset one_thread_apart(std::size_t kernels, std::vector<double> threads = {1, 2, 4, 8}) {
  std::vector<ThreadLaw> laws;
  for (std::size_t k = 0; k < kernels; ++k) {
    const double a = 1.0 + 0.1 * static_cast<double>(k), b = 0.5 + 0.05 * static_cast<double>(k);
    laws.push_back([a, b](double t) { return t == 1.0 ? 0.1 * a : a + b * std::log2(t); });
  }
  return input_of(laws, std::move(threads), 100, 0.03);
}

TEST(Learning, ChoosesTheWayThatExtrapolatesBestOnTheInput) {
  const Dataset data = one_thread_apart(20);
  const LearnedExtrapolation learned = learn_from_input(data, ModelerOptions{});
  ASSERT_TRUE(learned.reason.empty()) << learned.reason;
  EXPECT_EQ(learned.kernels, 20u);
  EXPECT_EQ(learned.predictions, 20u);  // one backtest per kernel: 1, 2, 4 predict 8
  ASSERT_GT(learned.candidates.size(), 1u);
  const LearningCandidate& chosen = learned.candidates[learned.chosen];
  EXPECT_LT(chosen.loss, learned.candidates[0].loss);
  for (const LearningCandidate& c : learned.candidates) EXPECT_LE(chosen.loss, c.loss + 1e-12);
  EXPECT_TRUE(learned.strategy_learned);
  const ModelerOptions applied = with_learned(ModelerOptions{}, learned);
  EXPECT_EQ(applied.strategy, chosen.strategy);
  EXPECT_EQ(applied.weighting, chosen.weighting);
  EXPECT_EQ(applied.aggregation, chosen.aggregation);
}

TEST(Learning, KeepsTheOptionsOwnWayWhenTheBacktestsCannotTellThemApart) {
  // Exact laws without noise: every way predicts the held-out counts alike.
  std::vector<ThreadLaw> laws;
  for (int k = 0; k < 8; ++k) laws.push_back([k](double t) { return 1.0 + k + 0.5 * t; });
  const LearnedExtrapolation learned = learn_from_input(input_of(laws, kLinear, 5, 0.0), {});
  EXPECT_EQ(learned.chosen, 0u);
  EXPECT_FALSE(learned.strategy_learned);
}

TEST(Learning, WhatTheUserFixedIsNotLearnt) {
  ModelerOptions options;
  options.learn.strategy = false;
  // Five counts: the backtest from the top keeps four training points, enough to calibrate.
  const std::vector<double> five = {1, 2, 4, 8, 16};
  const LearnedExtrapolation learned = learn_from_input(one_thread_apart(10, five), options);
  EXPECT_EQ(learned.candidates.size(), 1u);
  EXPECT_FALSE(learned.strategy_learned);
  EXPECT_TRUE(learned.law_change_learned);
  options.learn.law_change = false;
  const LearnedExtrapolation nothing = learn_from_input(one_thread_apart(10, five), options);
  EXPECT_FALSE(nothing.law_change_learned);
  EXPECT_EQ(with_learned(options, nothing).law_change_per_doubling,
            options.law_change_per_doubling);
}

TEST(Learning, TooFewKernelsKeepTheDefaultsAndSaySo) {
  const LearnedExtrapolation learned = learn_from_input(one_thread_apart(4), ModelerOptions{});
  EXPECT_FALSE(learned.strategy_learned);
  EXPECT_FALSE(learned.law_change_learned);
  EXPECT_NE(learned.reason.find("4 kernels"), std::string::npos) << learned.reason;
  EXPECT_NE(learned.describe().find("Nothing learnt"), std::string::npos);
  const ModelerOptions defaults;
  EXPECT_EQ(with_learned(defaults, learned).law_change_per_doubling,
            defaults.law_change_per_doubling);
}

TEST(Learning, TooFewEdgeBacktestsKeepThePriorAllowance) {
  // Six kernels reach the top of their range six times, fewer than the 10 predictions whose
  // 90% quantile says more than their largest: the public sets' allowance stays, and says how
  // many backtests it holds.
  ModelerOptions options;
  options.law_change_per_doubling = 0.123;
  const LearnedExtrapolation learned = learn_from_input(one_thread_apart(6), options);
  EXPECT_EQ(min_calibration_predictions(0.9), 10u);
  EXPECT_TRUE(learned.reason.empty());
  EXPECT_FALSE(learned.law_change_learned);
  EXPECT_EQ(with_learned(options, learned).law_change_per_doubling, 0.123);
  EXPECT_NE(learned.describe().find("Too few backtests reach the top of the range"),
            std::string::npos)
      << learned.describe();
  EXPECT_FALSE(std::isnan(learned.coverage));
  // An allowance the user fixed (`--law-change`) is not said to come from public measurements.
  options.learn.law_change = false;
  const std::string fixed = learn_from_input(one_thread_apart(6), options).describe();
  EXPECT_EQ(fixed.find("public measurements"), std::string::npos) << fixed;
}

TEST(Learning, TheExtrapPresetLearnsNothing) {
  const LearnedExtrapolation learned =
      learn_from_input(one_thread_apart(10), ModelerOptions::extrap());
  EXPECT_FALSE(learned.strategy_learned);
  EXPECT_FALSE(learned.law_change_learned);
}

// --- the change-of-law allowance ---------------------------------------------------------------

/// Parallel efficiency that decays with every doubling: c / t^(1 - d log2 t); fits of the
/// smaller counts overestimate the larger ones by more the further they reach.
Dataset decaying_efficiency(double decay) {
  std::vector<ThreadLaw> laws;
  for (int k = 0; k < 12; ++k) {
    const double c = 10.0 + k;
    laws.push_back([c, decay](double t) { return c / std::pow(t, 1.0 - decay * std::log2(t)); });
  }
  return input_of(laws, {1, 2, 3, 4, 6, 8, 12, 16, 24, 32}, 20, 0.01);
}

TEST(Learning, TheAllowanceGrowsWithWhatTheBacktestsMiss) {
  ModelerOptions options;
  options.learn.strategy = false;
  const LearnedExtrapolation holds = learn_from_input(decaying_efficiency(0.0), options);
  const LearnedExtrapolation bends = learn_from_input(decaying_efficiency(0.06), options);
  ASSERT_TRUE(holds.law_change_learned && bends.law_change_learned);
  EXPECT_LT(holds.law_change_per_doubling, 0.02);
  EXPECT_GT(bends.law_change_per_doubling, holds.law_change_per_doubling + 0.02);
  // The smallest allowance that holds the backtests at the intervals' level.
  EXPECT_GE(bends.coverage, options.confidence);
  EXPECT_GT(bends.overshoot_per_doubling, 0.0);  // decaying efficiency: fits run high
  EXPECT_NE(bends.example.find("too high"), std::string::npos) << bends.example;
}

// Measured at powers of two only (1, 2, 4, 8), the backtests nearest the top are fits of three
// counts. Judged with their own single degree of freedom their intervals held anything and
// nothing was learnt (the prior stayed); judged as the fit of four counts that predicts, they
// calibrate, and an input whose efficiency decays gets a wider allowance than one whose law
// holds.
TEST(Learning, PowersOfTwoCalibrateFromFitsOfThreeCounts) {
  ModelerOptions options;
  options.learn.strategy = false;
  const auto at_powers_of_two = [](double decay) {
    std::vector<ThreadLaw> laws;
    for (int k = 0; k < 12; ++k) {
      const double c = 10.0 + k;
      laws.push_back([c, decay](double t) { return c / std::pow(t, 1.0 - decay * std::log2(t)); });
    }
    return input_of(laws, {1, 2, 4, 8}, 20, 0.01);
  };
  const LearnedExtrapolation holds = learn_from_input(at_powers_of_two(0.0), options);
  const LearnedExtrapolation bends = learn_from_input(at_powers_of_two(0.15), options);
  ASSERT_TRUE(holds.law_change_learned && bends.law_change_learned) << holds.describe();
  EXPECT_GT(bends.law_change_per_doubling, holds.law_change_per_doubling + 0.02);
  EXPECT_GE(bends.coverage, options.confidence);
}

// Several parameters: each kernel's lines along the first parameter, one per measured value of
// the others, are what learning backtests (the two-parameter modeler's slices).
Dataset over_threads_and_size(int kernels) {
  Dataset data;
  data.parameter = "threads";
  data.parameters = {"threads", "size"};
  data.key_columns = {"kernel"};
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int k = 0; k < kernels; ++k) {
    std::vector<double> flat;
    for (double t : kLinear) {
      for (double size : {100.0, 400.0, 1600.0}) {
        for (int r = 0; r < 5; ++r)
          flat.insert(flat.end(), {t, size, (1.0 + k + size / 100.0 * t) * (1.0 + 0.02 * u(rng))});
      }
    }
    data.kernels.push_back(Kernel::from_points({fmt::format("k{}", k)}, 2, flat));
  }
  return data;
}

TEST(Learning, SeveralParametersLearnFromTheLinesAlongTheFirst) {
  const Dataset data = over_threads_and_size(3);
  const Dataset lines = lines_of_first(data);
  ASSERT_EQ(lines.kernels.size(), 9u);  // 3 kernels x 3 sizes
  EXPECT_EQ(lines.dimensions(), 1u);
  EXPECT_EQ(lines.key_columns, (std::vector<std::string>{"kernel", "size"}));
  EXPECT_EQ(lines.kernels[1].key_value(1), "400");
  const std::span<const double> threads = lines.kernels[1].params();
  EXPECT_EQ(std::vector<double>(threads.begin(), threads.end()), kLinear);
  EXPECT_EQ(lines.kernels[1].repetitions(0).size(), 5u);

  const LearnedExtrapolation learned = learn_from_input(data, ModelerOptions{});
  ASSERT_TRUE(learned.reason.empty()) << learned.reason;
  EXPECT_TRUE(learned.along_lines);
  EXPECT_EQ(learned.kernels, 9u);
  EXPECT_NE(learned.describe().find("9 lines along the first parameter"), std::string::npos)
      << learned.describe();
}

// Each size's line along the threads follows its own law (a bandwidth limit changes the law
// from one size to the next): no law over both parameters holds them all.
Dataset a_law_per_size(int kernels) {
  const std::vector<std::function<double(double, int)>> per_size = {
      [](double t, int k) { return 1.0 + k + 0.5 * t; },
      [](double t, int k) { return 2.0 + k + 3.0 * std::log2(t); },
      [](double t, int k) { return 5.0 + k + 0.1 * t * t; }};
  Dataset data;
  data.parameter = "threads";
  data.parameters = {"threads", "size"};
  data.key_columns = {"kernel"};
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int k = 0; k < kernels; ++k) {
    std::vector<double> flat;
    for (double t : kLinear) {
      for (std::size_t s = 0; s < per_size.size(); ++s) {
        const double size = 100.0 * std::pow(4.0, static_cast<double>(s));
        for (int r = 0; r < 5; ++r)
          flat.insert(flat.end(), {t, size, per_size[s](t, k) * (1.0 + 0.02 * u(rng))});
      }
    }
    data.kernels.push_back(Kernel::from_points({fmt::format("k{}", k)}, 2, flat));
  }
  return data;
}

TEST(Learning, TwoParametersModelEachLineWhenNoLawHoldsThemAll) {
  const Dataset data = a_law_per_size(3);
  const LearnedExtrapolation learned = learn_from_input(data, ModelerOptions{});
  ASSERT_EQ(learned.line_ways.size(), 2u) << learned.describe();
  EXPECT_EQ(learned.line_way, 1u) << learned.describe();
  EXPECT_LT(learned.line_ways[1].median_error, learned.line_ways[0].median_error);
  EXPECT_TRUE(with_learned(ModelerOptions{}, learned).model_each_line);
  EXPECT_NE(learned.describe().find("Each line along the first parameter modeled on its own"),
            std::string::npos)
      << learned.describe();

  // Its predictions along a measured size come from that size's line.
  const std::vector<MultiResult> fits =
      fit_multi_dataset(data, with_learned(ModelerOptions{}, learned));
  ASSERT_EQ(fits.front().lines.size(), 3u);
  const std::vector<double> at = {24.0, 1600.0};
  const LineModel* line = line_at(fits.front(), at);
  ASSERT_NE(line, nullptr);
  EXPECT_NEAR(line->model.evaluate(24.0), 5.0 + 0.1 * 24.0 * 24.0, 0.05 * (5.0 + 57.6));
  EXPECT_NEAR(predicted_value(distribution_along_first(fits.front(), at), 24.0),
              line->model.evaluate(24.0), 1e-9 * line->model.evaluate(24.0));
  // An unmeasured size has no line: the law over both predicts there.
  const std::vector<double> between = {24.0, 800.0};
  EXPECT_EQ(line_at(fits.front(), between), nullptr);
}

TEST(Learning, TwoParametersKeepOneLawThatHoldsEveryLine) {
  const LearnedExtrapolation learned = learn_from_input(over_threads_and_size(6), ModelerOptions{});
  ASSERT_EQ(learned.line_ways.size(), 2u) << learned.describe();
  EXPECT_EQ(learned.line_way, 0u) << learned.describe();
  EXPECT_FALSE(with_learned(ModelerOptions{}, learned).model_each_line);
  EXPECT_NE(learned.describe().find("does not predict its larger values clearly better"),
            std::string::npos)
      << learned.describe();

  ModelerOptions asked;  // the user's choice is not learnt
  asked.learn.lines = false;
  EXPECT_TRUE(learn_from_input(over_threads_and_size(6), asked).line_ways.empty());
}

// A user who fixes the way of fitting and the intervals still has the lines' choice learnt.
TEST(Learning, TheLinesChoiceIsLearntWhenTheRestIsFixed) {
  ModelerOptions fixed;
  fixed.learn.strategy = false;
  fixed.learn.law_change = false;
  const LearnedExtrapolation learned = learn_from_input(a_law_per_size(3), fixed);
  ASSERT_EQ(learned.line_ways.size(), 2u) << learned.describe();
  EXPECT_EQ(learned.line_way, 1u);
  EXPECT_TRUE(with_learned(fixed, learned).model_each_line);
  EXPECT_EQ(learned.describe().find("Each line along the first parameter modeled on its own"), 0u)
      << learned.describe();
}

TEST(Learning, DescriptionSaysWhatWasLearntAndFromHowMuch) {
  const LearnedExtrapolation learned = learn_from_input(one_thread_apart(20), ModelerOptions{});
  const std::string text = learned.describe();
  EXPECT_NE(text.find(std::to_string(learned.predictions) + " backtests of 20 kernels"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(learned.candidates[learned.chosen].name), std::string::npos) << text;
  EXPECT_NE(text.find("per doubling"), std::string::npos) << text;
}

}  // namespace
}  // namespace ompscale::modeler

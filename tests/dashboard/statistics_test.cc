// The statistics under the regression detection: the rank test, Holm's correction, E-divisive
// change points and level shifts, the noise floor; and the A/B comparison's.

#include "common/statistics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "dashboard/analysis/change_points.h"
#include "dashboard/analysis/noise_floor.h"
#include "dashboard/analysis/order_statistics.h"
#include "dashboard/analysis/rank_test.h"
#include "dashboard/confirm/ab_statistics.h"

namespace ompscale::dashboard {
namespace {

// U of x against y counted pair by pair, ties 1/2.
double brute_u(const std::vector<double>& x, const std::vector<double>& y) {
  double u = 0;
  for (double a : x) {
    for (double b : y) u += a > b ? 1.0 : (a == b ? 0.5 : 0.0);
  }
  return u;
}

// Two-sided permutation p-value of U by enumerating every split (small) or sampling (large).
double permutation_p(const std::vector<double>& x, const std::vector<double>& y, int samples) {
  std::vector<double> all = x;
  all.insert(all.end(), y.begin(), y.end());
  const double mean = x.size() * y.size() / 2.0;
  const double observed = std::fabs(brute_u(x, y) - mean);
  std::mt19937 rng(7);
  int extreme = 0;
  for (int s = 0; s < samples; ++s) {
    std::shuffle(all.begin(), all.end(), rng);
    const std::vector<double> a(all.begin(), all.begin() + x.size());
    const std::vector<double> b(all.begin() + x.size(), all.end());
    if (std::fabs(brute_u(a, b) - mean) >= observed - 1e-9) ++extreme;
  }
  return static_cast<double>(extreme) / samples;
}

TEST(MannWhitney, SmallSamplesAreExact) {
  const RankTest t = mann_whitney(std::vector<double>{1, 2, 3}, std::vector<double>{4, 5, 6});
  EXPECT_TRUE(t.exact);
  EXPECT_DOUBLE_EQ(t.u, 0.0);
  EXPECT_NEAR(t.p_value, 2.0 / 20.0, 1e-12);  // 2 of the 20 splits are this extreme
  const std::vector<double> x = {0.3, 1.7, 2.2, 5.1, 0.9, 4.4, 3.3};
  const std::vector<double> y = {2.5, 6.1, 7.0, 3.9, 5.5, 8.2};
  const RankTest u = mann_whitney(x, y);
  EXPECT_DOUBLE_EQ(u.u, brute_u(x, y));
  EXPECT_NEAR(u.p_value, permutation_p(x, y, 200000), 0.005);
}

TEST(MannWhitney, LargeSamplesWithTiesFollowThePermutationDistribution) {
  std::mt19937 rng(3);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> x, y;
  for (int i = 0; i < 30; ++i) x.push_back(std::round(normal(rng) * 4) / 4);  // many ties
  for (int i = 0; i < 35; ++i) y.push_back(std::round((normal(rng) + 0.5) * 4) / 4);
  const RankTest t = mann_whitney(x, y);
  EXPECT_FALSE(t.exact);
  EXPECT_DOUBLE_EQ(t.u, brute_u(x, y));
  EXPECT_NEAR(t.p_value, permutation_p(x, y, 40000), 0.01);
  EXPECT_DOUBLE_EQ(mann_whitney(x, {}).p_value, 1.0);
  EXPECT_DOUBLE_EQ(mann_whitney(std::vector<double>(30, 1.0), std::vector<double>(30, 1.0)).p_value,
                   1.0);
}

TEST(Holm, AdjustsStepDownAndStaysMonotone) {
  const std::vector<double> p = {0.01, 0.04, 0.03, 0.005};
  const std::vector<double> a = holm_adjust(p);
  EXPECT_DOUBLE_EQ(a[3], 0.02);  // 4 * 0.005
  EXPECT_DOUBLE_EQ(a[0], 0.03);  // 3 * 0.01
  EXPECT_DOUBLE_EQ(a[2], 0.06);  // 2 * 0.03
  EXPECT_DOUBLE_EQ(a[1], 0.06);  // max(1 * 0.04, 0.06)
}

std::vector<double> noisy_levels(std::vector<double> levels, double sigma, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal(0.0, sigma);
  for (double& v : levels) v = std::log(v) + normal(rng);
  return levels;
}

TEST(EDivisive, FindsAndDatesAStep) {
  std::vector<double> levels(30, 1.0);
  std::fill(levels.begin() + 17, levels.end(), 1.2);
  const std::vector<double> x = noisy_levels(levels, 0.02, 1);
  const std::vector<ChangePoint> points = e_divisive(x, {.significance = 0.001});
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].index, 17u);
  EXPECT_NEAR(std::exp(points[0].after - points[0].before), 1.2, 0.03);
  // The statistic peaks at the step.
  EXPECT_GT(energy_statistic(x, 0, 17, 30), energy_statistic(x, 0, 12, 30));
  EXPECT_GT(energy_statistic(x, 0, 17, 30), energy_statistic(x, 0, 22, 30));
}

TEST(EDivisive, NoiseAloneHasNoChangePoint) {
  int found = 0;
  for (unsigned seed = 0; seed < 50; ++seed) {
    found += static_cast<int>(
        e_divisive(noisy_levels(std::vector<double>(40, 1.0), 0.05, seed), {.significance = 0.01})
            .size());
  }
  EXPECT_LE(found, 3);  // about 0.01 per split tried
}

TEST(EDivisive, SmallChangesAreBelowThePracticalThreshold) {
  std::vector<double> levels(30, 1.0);
  std::fill(levels.begin() + 15, levels.end(), 1.03);
  EXPECT_TRUE(e_divisive(noisy_levels(levels, 0.001, 2), {}).empty());
}

TEST(LevelShifts, ARampIsOneDriftAndAStairIsTwoSteps) {
  std::vector<double> ramp(40, 1.0);
  for (int i = 20; i < 40; ++i) ramp[i] = std::pow(1.02, i - 19);
  for (unsigned seed = 0; seed < 10; ++seed) {
    const std::vector<double> x = noisy_levels(ramp, 0.005, seed);
    const auto shifts = level_shifts(x, e_divisive(x, {.significance = 0.001}));
    ASSERT_EQ(shifts.size(), 1u) << seed;
    EXPECT_TRUE(shifts[0].drift()) << seed;
    EXPECT_NEAR(static_cast<double>(shifts[0].first), 20.0, 2.0) << seed;
  }

  std::vector<double> stair(36, 1.0);
  std::fill(stair.begin() + 12, stair.end(), 1.2);
  std::fill(stair.begin() + 24, stair.end(), 1.44);
  const std::vector<double> y = noisy_levels(stair, 0.01, 5);
  const auto steps = level_shifts(y, e_divisive(y, {.significance = 0.001}));
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_FALSE(steps[0].drift());
  EXPECT_EQ(steps[0].first, 12u);
  EXPECT_EQ(steps[1].first, 24u);
}

TEST(NoiseFloor, EstimateFromDifferencesAndTheDetectableChange) {
  // Nightly levels with sigma 0.1: the estimate comes close, one degree of freedom a difference.
  const std::vector<double> x = noisy_levels(std::vector<double>(2000, 1.0), 0.1, 9);
  std::vector<double> d;
  for (std::size_t i = 1; i < x.size(); ++i) d.push_back(std::fabs(x[i] - x[i - 1]));
  const NoiseEstimate n = estimate_from_differences(d);
  EXPECT_NEAR(n.sigma(), 0.1, 0.005);
  EXPECT_EQ(n.dof, 1999.0);
  // A real change among the differences is left out.
  d.push_back(3.0);
  EXPECT_EQ(estimate_from_differences(d).dof, 1999.0);
  EXPECT_FALSE(estimate_from_differences({}).known());
  // Many degrees of freedom, one test at 1%: z = 2.576; against one run: sqrt(2).
  EXPECT_NEAR(detectable_change(n, 1, 1, 0.01), std::expm1(2.576 * n.sigma() * std::sqrt(2.0)),
              2e-3);
  // More comparisons or fewer degrees of freedom: a larger floor.
  EXPECT_GT(detectable_change(n, 1, 100, 0.01), detectable_change(n, 1, 1, 0.01));
  EXPECT_GT(detectable_change({0.01, 5}, 1, 1, 0.01), detectable_change({0.01, 500}, 1, 1, 0.01));
  // Shrinking towards the group: its weight is capped.
  const NoiseEstimate m = moderated({0.04, 4}, {0.01, 100}, 4.0);
  EXPECT_DOUBLE_EQ(m.variance, (4 * 0.04 + 4 * 0.01) / 8.0);
  EXPECT_DOUBLE_EQ(m.dof, 8.0);
  EXPECT_DOUBLE_EQ(moderated({}, {0.01, 3}).variance, 0.01);
}

TEST(NoiseFloor, ValuesInClockStepsFloorTheirMedianBeyondTwoSteps) {
  // Costs near the clock's resolution: 10 ns steps (in us).
  const std::vector<double> stepped = {0.18027, 0.19028, 0.18027, 0.20030, 0.18027, 0.19028};
  EXPECT_NEAR(resolution(stepped), 0.01001, 1e-5);
  EXPECT_NEAR(resolution_floor(resolution(stepped), 0.18027), 2.5 * 0.01001 / 0.18027, 1e-4);
  // Values that vary continuously (100 repetitions, 5% spread) have no step worth the name.
  std::vector<double> smooth = noisy_levels(std::vector<double>(100, 0.3), 0.05, 11);
  for (double& v : smooth) v = std::exp(v);  // noisy_levels gives logs
  EXPECT_LT(resolution_floor(resolution(smooth), 0.3), 0.01);
  // One odd pair of values among steps does not hide the steps.
  std::vector<double> mostly = stepped;
  mostly.push_back(0.18027 + 1e-6);
  EXPECT_NEAR(resolution(mostly), 0.01001, 1e-5);
  EXPECT_EQ(resolution(std::vector<double>{0.5, 0.5}), 0.0);
  EXPECT_EQ(resolution(std::vector<double>{0.1, 0.1 + 1e-13}), 0.0);  // rounding, not a step
  EXPECT_EQ(resolution_floor(0.0, 1.0), 0.0);
}

TEST(OrderStatistics, RunningMedianIsTheMedianOfEveryPrefix) {
  std::mt19937 rng(4);
  std::uniform_int_distribution<int> steps(0, 20);  // many ties, as clock steps make them
  RunningMedian running;
  std::vector<double> seen;
  EXPECT_TRUE(std::isnan(running.median()));
  for (int i = 0; i < 300; ++i) {
    const double v = 0.01 * steps(rng) + (i % 7 == 0 ? 5.0 : 0.0);
    running.add(v);
    seen.push_back(v);
    ASSERT_EQ(running.median(), stats::median(seen)) << i;  // bit for bit
  }
}

TEST(OrderStatistics, RankedSumsCountAndSumWhatLiesAtOrBelowABound) {
  std::mt19937 rng(5);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> universe;
  for (int i = 0; i < 200; ++i) universe.push_back(std::round(normal(rng) * 8) / 8);
  RankedSums sums(universe);
  std::vector<double> held;
  for (std::size_t i = 0; i < universe.size(); ++i) {
    sums.add(universe[i], universe[i]);
    held.push_back(universe[i]);
    if (i % 3 == 2) {  // and take some out again
      sums.remove(held.front(), held.front());
      held.erase(held.begin());
    }
    const double bound = universe[(i * 7) % universe.size()];
    std::size_t count = 0;
    double weight = 0, distance = 0;
    for (double v : held) {
      if (v <= bound) ++count, weight += v;
      distance += std::fabs(bound - v);
    }
    ASSERT_EQ(sums.count_at_most(bound), count) << i;
    ASSERT_NEAR(sums.weight_at_most(bound), weight, 1e-9) << i;
    ASSERT_NEAR(sums.distance_sum(bound), distance, 1e-9) << i;
    ASSERT_EQ(sums.count(), held.size());
  }
  EXPECT_THROW(sums.add(0.3 + 1e-3, 1.0), std::logic_error);
}

TEST(OrderStatistics, SumsAreTheSameBitsWhateverTheUniverse) {
  // A night's noise estimate must not change when later nights widen the universe (the tree's
  // shape): the weights are summed exactly.
  std::mt19937 rng(6);
  std::uniform_real_distribution<double> uniform(0.0, 0.1);
  std::vector<double> first, later;
  for (int i = 0; i < 100; ++i) first.push_back(uniform(rng));
  later = first;
  for (int i = 0; i < 157; ++i) later.push_back(uniform(rng));
  RankedSums small(first), large(later);
  for (double v : first) {
    small.add(v, v * v / 2);
    large.add(v, v * v / 2);
    ASSERT_EQ(small.weight_at_most(0.05), large.weight_at_most(0.05));
    ASSERT_EQ(small.weight(), large.weight());
  }
}

TEST(EDivisive, OnePassScoresEverySplitAsTheDefinitionDoes) {
  std::vector<double> levels(60, 1.0);
  std::fill(levels.begin() + 25, levels.end(), 1.1);
  const std::vector<double> x = noisy_levels(levels, 0.03, 8);
  for (const auto& [begin, end] : {std::pair<std::size_t, std::size_t>{0, 60}, {10, 47}, {3, 9}}) {
    const std::vector<double> q = energy_statistics(x, begin, end, 3);
    ASSERT_EQ(q.size(), end - begin - 5);
    for (std::size_t i = 0; i < q.size(); ++i) {
      const double direct = energy_statistic(x, begin, begin + 3 + i, end);
      EXPECT_NEAR(q[i], direct, 1e-9 * std::max(1.0, std::fabs(direct))) << begin << " " << i;
    }
  }
}

TEST(NoiseFloor, PrefixEstimatesAreThoseOfEveryPrefix) {
  // Differences with a few jumps among them, and a stretch of zeros (no robust scale).
  std::vector<double> d = {0, 0, 0};
  const std::vector<double> x = noisy_levels(std::vector<double>(150, 1.0), 0.05, 12);
  for (std::size_t i = 1; i < x.size(); ++i) d.push_back(std::fabs(x[i] - x[i - 1]));
  d[40] = 2.0, d[90] = 1.5;
  PrefixNoise prefix(d);
  for (std::size_t k = 0; k <= d.size(); ++k) {
    const std::span<const double> first(d.data(), k);
    const NoiseEstimate batch = estimate_from_differences(first);
    const NoiseEstimate kept = estimate_from_differences(first, true);
    ASSERT_EQ(prefix.estimate().dof, batch.dof) << k;
    ASSERT_NEAR(prefix.estimate().variance, batch.variance, 1e-12) << k;
    ASSERT_EQ(prefix.estimate_keeping_jumps().dof, kept.dof) << k;
    ASSERT_NEAR(prefix.estimate_keeping_jumps().variance, kept.variance, 1e-12) << k;
    if (k < d.size()) prefix.add(d[k]);
  }
  EXPECT_EQ(estimate_from_differences(d).dof, static_cast<double>(d.size() - 2));
}

// Round pairs of an A/B: each round's level drifts (the machine state moves between rounds) by
// `drift`, both builds see the same drift, the new one `change` slower; each median has its own
// `noise`.
std::vector<AbRound> ab_rounds(double change, double drift, double noise, int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<AbRound> rounds;
  for (int i = 0; i < n; ++i) {
    const double level = std::exp(drift * normal(rng));
    rounds.push_back({level * std::exp(noise * normal(rng)),
                      level * (1 + change) * std::exp(noise * normal(rng)), 400, 410, i % 2 == 0});
  }
  return rounds;
}

TEST(AbStatistics, ATenPercentChangeIsConfirmedAndNoneIsNot) {
  AbStatisticsOptions options;
  int slower = 0, unchanged = 0;
  for (unsigned seed = 1; seed <= 50; ++seed) {
    // A drift of 30% between rounds cancels in the pairs; 2% noise per median remains.
    const AbEstimate planted = estimate_ab(ab_rounds(0.10, 0.3, 0.02, 10, seed), options);
    const AbEstimate same = estimate_ab(ab_rounds(0.0, 0.3, 0.02, 10, 1000 + seed), options);
    slower += planted.verdict == "slower";
    unchanged += same.verdict == "unchanged";
    EXPECT_EQ(planted.pairs, 10u);
    EXPECT_LT(planted.low, planted.change);
    EXPECT_GT(planted.high, planted.change);
  }
  EXPECT_GE(slower, 48);
  EXPECT_GE(unchanged, 49);
  // The smallest detectable change: (t(0.995, 9) + t(0.8, 9)) * sd * sqrt(2) / sqrt(10) for a
  // log-ratio sd of sqrt(2) * 2%.
  EXPECT_NEAR(ab_detectable_change(0.02 * std::sqrt(2.0), 10, 0.01),
              std::expm1((3.2498 + 0.8834) * 0.02 * std::sqrt(2.0) / std::sqrt(10.0)), 1e-3);
}

// A round pair disturbed by a preemption in one half (one in ten on this VM, 10-20% off) moves
// neither the estimate nor the interval much: the A/B stays right.
TEST(AbStatistics, AnOutlyingPairDoesNotDecide) {
  std::vector<AbRound> planted = ab_rounds(0.10, 0.02, 0.02, 12, 7);
  planted[3].new_median = planted[3].old_median * 0.95;  // 15% below the change
  const AbEstimate slower = estimate_ab(planted, {});
  EXPECT_EQ(slower.verdict, "slower");
  EXPECT_NEAR(slower.change, 0.10, 0.03);
  std::vector<AbRound> same = ab_rounds(0.0, 0.02, 0.02, 12, 8);
  same[5].new_median = same[5].old_median * 1.2;
  const AbEstimate unchanged = estimate_ab(same, {});
  EXPECT_EQ(unchanged.verdict, "unchanged");
  EXPECT_LT(std::fabs(unchanged.change), 0.03);
  // Hodges-Lehmann on known ratios: the median of the Walsh averages of 1..5 (log) percent.
  std::vector<AbRound> known;
  for (int i = 1; i <= 5; ++i) known.push_back({1.0, std::exp(0.01 * i), 0, 0, true});
  EXPECT_NEAR(std::log1p(estimate_ab(known, {}).change), 0.03, 1e-12);
}

TEST(AbStatistics, TheSignificanceSetsTheFewestPairs) {
  EXPECT_EQ(pairs_needed(0.01), 8u);        // 2^-8 = 0.0039 <= 0.005
  EXPECT_EQ(pairs_needed(0.01 / 38), 13u);  // 2^-13 = 0.00012 <= 0.00013
  EXPECT_EQ(pairs_needed(0.05), 6u);
  // Seven pairs, all +20%: no interval at 0.01, so inconclusive however clear they look.
  const AbEstimate seven = estimate_ab(ab_rounds(0.2, 0.0, 0.001, 7, 9), {});
  EXPECT_EQ(seven.verdict, "inconclusive");
  EXPECT_TRUE(std::isnan(seven.low));
  EXPECT_EQ(estimate_ab(ab_rounds(0.2, 0.0, 0.001, 8, 9), {}).verdict, "slower");
}

TEST(AbStatistics, PairsInTwoMachineStatesAreLeftOutAndTooFewAreInconclusive) {
  std::vector<AbRound> rounds = ab_rounds(0.10, 0.02, 0.02, 10, 3);
  for (int i = 0; i < 7; ++i) rounds[i].new_canary_ns = 900;  // the machine changed state
  const AbEstimate e = estimate_ab(rounds, {});
  EXPECT_EQ(e.pairs, 3u);
  EXPECT_EQ(e.dropped, 7u);
  EXPECT_EQ(e.verdict, "inconclusive");
  // Within the threshold, even when significant: unchanged.
  const AbEstimate small = estimate_ab(ab_rounds(0.03, 0.02, 0.002, 10, 4), {});
  EXPECT_EQ(small.verdict, "unchanged");
  EXPECT_GT(small.low, 0.0);
  AbStatisticsOptions lower;
  lower.threshold = 0.01;
  EXPECT_EQ(estimate_ab(ab_rounds(0.03, 0.02, 0.002, 10, 4), lower).verdict, "slower");
  EXPECT_EQ(estimate_ab(ab_rounds(-0.2, 0.02, 0.02, 10, 5), {}).verdict, "faster");
}

}  // namespace
}  // namespace ompscale::dashboard

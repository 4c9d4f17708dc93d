#include "common/statistics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

namespace ompscale::stats {
namespace {

TEST(Statistics, MedianOfEvenSampleAveragesMiddleValues) {
  const std::vector<double> x{4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(median(x), 2.5);
}

TEST(Statistics, QuantileInterpolatesLikeNumpy) {
  const std::vector<double> x{1, 2, 3, 4, 5};
  EXPECT_DOUBLE_EQ(quantile(x, 0.9), 4.6);
  EXPECT_DOUBLE_EQ(quantile(x, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(quantile(x, 1.0), 5.0);
}

TEST(Statistics, TrimmedMeanDropsQuarterAtEachEnd) {
  // 8 values: drop 2 lowest (1, 2) and 2 highest (100, 200).
  const std::vector<double> x{200, 1, 5, 2, 6, 100, 7, 8};
  EXPECT_DOUBLE_EQ(trimmed_mean(x), (5 + 6 + 7 + 8) / 4.0);
}

TEST(Statistics, TrimmedMeanKeepsAtLeastOneValue) {
  const std::vector<double> one{3};
  EXPECT_DOUBLE_EQ(trimmed_mean(one), 3.0);
  const std::vector<double> two{1, 3};
  EXPECT_DOUBLE_EQ(trimmed_mean(two, 0.5), 2.0);
}

TEST(Statistics, StddevUsesSampleDenominator) {
  const std::vector<double> x{2, 4, 4, 4, 5, 5, 7, 9};
  EXPECT_NEAR(stddev(x), std::sqrt(32.0 / 7.0), 1e-12);
  EXPECT_NEAR(coefficient_of_variation(x), std::sqrt(32.0 / 7.0) / 5.0, 1e-12);
}

TEST(Statistics, RobustStddevIgnoresOneOutlyingValue) {
  const std::vector<double> normal_like{9, 10, 11};
  EXPECT_NEAR(robust_stddev(normal_like), 1.4826, 1e-12);
  const std::vector<double> one_outlier{9, 10, 11,
                                        50};  // median 10.5; deviations 0.5, 0.5, 1.5, 39.5
  EXPECT_NEAR(robust_stddev(one_outlier), 1.4826, 1e-12);
  EXPECT_GT(stddev(one_outlier), 19.0);
  EXPECT_EQ(robust_stddev(std::vector<double>{3.0}), 0.0);
}

TEST(Statistics, MedianStandardErrorIsTheMeansTimesSqrtOfHalfPi) {
  EXPECT_NEAR(median_standard_error(2.0, 4), 1.2533, 1e-12);  // 1.2533 x 2 / sqrt(4)
  EXPECT_NEAR(median_standard_error(1.0, 100), 0.12533, 1e-12);
  EXPECT_EQ(median_standard_error(1.0, 0), 0.0);
}

TEST(Statistics, EmptySampleGivesNaN) {
  const std::vector<double> empty;
  EXPECT_TRUE(std::isnan(mean(empty)));
  EXPECT_TRUE(std::isnan(median(empty)));
}

// Two ways whose errors differ by a constant: every resample's difference is that constant.
// Two ways with the same errors shuffled: the interval holds 0.
TEST(Statistics, PairedBootstrapDifferenceOfQuantiles) {
  std::vector<double> a, b;
  for (int i = 0; i < 200; ++i) {
    a.push_back(0.01 * i);
    b.push_back(0.01 * i + 0.5);
  }
  const stats::Interval shifted = stats::paired_bootstrap_difference(a, b, 0.5);
  EXPECT_NEAR(shifted.low, -0.5, 1e-12);
  EXPECT_NEAR(shifted.high, -0.5, 1e-12);
  std::vector<double> c = a;
  std::reverse(c.begin(), c.end());
  const stats::Interval same = stats::paired_bootstrap_difference(a, c, 0.9);
  EXPECT_LT(same.low, 0.0);
  EXPECT_GT(same.high, 0.0);
  EXPECT_TRUE(std::isnan(stats::paired_bootstrap_difference(a, {}, 0.5).low));
  // Ten groups of twenty equal elements: the resamples vary as ten points would, more widely
  // than two hundred independent ones.
  std::vector<double> grouped_a, grouped_b;
  std::vector<std::size_t> groups;
  for (std::size_t g = 0; g < 10; ++g) {
    for (int i = 0; i < 20; ++i) {
      grouped_a.push_back(0.1 * static_cast<double>(g));
      grouped_b.push_back(0.1 * static_cast<double>(9 - g));
      groups.push_back(g);
    }
  }
  const stats::Interval by_element = stats::paired_bootstrap_difference(grouped_a, grouped_b, 0.5);
  const stats::Interval by_group =
      stats::paired_bootstrap_difference(grouped_a, grouped_b, 0.5, groups);
  EXPECT_GT(by_group.high - by_group.low, by_element.high - by_element.low);
  const std::span<const std::size_t> too_few(groups.data(), 5);
  EXPECT_TRUE(std::isnan(stats::paired_bootstrap_difference(a, b, 0.5, too_few).low));
}

// A share of 0s and 1s: the interval holds the share and narrows with more points; whole groups
// drawn widen it when the groups' members agree.
TEST(Statistics, BootstrapMeanOfAShare) {
  std::vector<double> few, many;
  for (int i = 0; i < 40; ++i) few.push_back(i % 10 == 0 ? 0.0 : 1.0);
  for (int i = 0; i < 4000; ++i) many.push_back(i % 10 == 0 ? 0.0 : 1.0);
  const stats::Interval a = stats::bootstrap_mean(few);
  const stats::Interval b = stats::bootstrap_mean(many);
  EXPECT_LE(a.low, 0.9);
  EXPECT_GE(a.high, 0.9);
  EXPECT_LT(b.high - b.low, a.high - a.low);
  EXPECT_NEAR(0.5 * (b.low + b.high), 0.9, 0.01);
  std::vector<std::size_t> groups;
  std::vector<double> grouped;
  for (std::size_t g = 0; g < 40; ++g) {
    for (int i = 0; i < 10; ++i) {
      grouped.push_back(g % 10 == 0 ? 0.0 : 1.0);
      groups.push_back(g);
    }
  }
  const stats::Interval by_element = stats::bootstrap_mean(grouped);
  const stats::Interval by_group = stats::bootstrap_mean(grouped, groups);
  EXPECT_GT(by_group.high - by_group.low, 2.0 * (by_element.high - by_element.low));
  EXPECT_TRUE(std::isnan(stats::bootstrap_mean({}).low));
  const std::span<const std::size_t> too_few(groups.data(), 5);
  EXPECT_TRUE(std::isnan(stats::bootstrap_mean(grouped, too_few).low));
}

}  // namespace
}  // namespace ompscale::stats

// Topology boundaries (modeler/core/boundaries.h): where a machine's laws may change, and the
// flag and the wider interval of a prediction past one that no measurement crosses.

#include "modeler/core/boundaries.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "modeler/fit.h"

namespace ompscale::modeler {
namespace {

using ::testing::HasSubstr;

platforms::Platform two_sockets_with_hyperthreads() {
  platforms::Platform p;
  p.sockets_per_board = 2;
  p.cores_per_socket = 8;
  p.threads_per_core = 2;
  p.numa_nodes = 2;
  return p;
}

TEST(TopologyBoundaries, SocketNumaNodeCoresAndHardwareThreads) {
  const std::vector<TopologyBoundary> b = topology_boundaries(two_sockets_with_hyperthreads());
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0].threads, 8.0);  // a node and a socket end together: one boundary
  EXPECT_THAT(b[0].what, HasSubstr("NUMA node"));
  EXPECT_THAT(b[0].what, HasSubstr("socket"));
  EXPECT_EQ(b[1].threads, 16.0);
  EXPECT_THAT(b[1].what, HasSubstr("more threads than cores (16)"));
  EXPECT_EQ(b[2].threads, 32.0);
  EXPECT_THAT(b[2].what, HasSubstr("more threads than hardware threads (32)"));
}

TEST(TopologyBoundaries, OneSocketWithoutSmtEndsOnlyAtItsHardwareThreads) {
  platforms::Platform p;
  p.cores_per_socket = 16;
  const std::vector<TopologyBoundary> b = topology_boundaries(p);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].threads, 16.0);
}

TEST(TopologyBoundaries, UncrossedLieBetweenTheLargestMeasurementAndThePrediction) {
  const std::vector<TopologyBoundary> b = topology_boundaries(two_sockets_with_hyperthreads());
  EXPECT_EQ(uncrossed_boundaries(b, 8, 32).size(), 2u);  // measured at 8: 8 and 16 lie ahead
  EXPECT_TRUE(uncrossed_boundaries(b, 12, 16).empty());  // 16 threads do not cross 16
  EXPECT_TRUE(uncrossed_boundaries(b, 2, 6).empty());
  ASSERT_EQ(uncrossed_boundaries(b, 20, 64).size(), 1u);  // 20 threads crossed 8 and 16
  EXPECT_EQ(uncrossed_boundaries(b, 20, 64)[0].threads, 32.0);
}

Kernel measured_to_eight() {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<Sample> samples;
  for (double t : {1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0}) {
    for (int r = 0; r < 5; ++r)
      samples.push_back({t, (1.0 + 0.5 * std::log2(t)) * (1.0 + 0.02 * u(rng))});
  }
  return Kernel::from_samples({"k"}, std::move(samples));
}

TEST(TopologyBoundaries, PredictionPastOneIsFlaggedAndItsIntervalAllowsTheChange) {
  ModelerOptions options;
  options.law_change_per_doubling = 0.0;  // as if the input's backtests had seen no change
  options.predict_at = {6.0, 32.0};
  const KernelResult plain = fit_kernel(measured_to_eight(), options);
  options.boundaries = {{16.0, "more threads than cores (16)"}};
  const KernelResult flagged = fit_kernel(measured_to_eight(), options);
  ASSERT_EQ(plain.models.size(), 1u);
  ASSERT_EQ(flagged.models.size(), 1u);
  const std::vector<Prediction>& a = plain.models[0].predictions;
  const std::vector<Prediction>& b = flagged.models[0].predictions;
  ASSERT_EQ(b.size(), 2u);
  EXPECT_TRUE(b[0].boundaries.empty());
  EXPECT_EQ(b[0].interval.high, a[0].interval.high);
  ASSERT_EQ(b[1].boundaries.size(), 1u);
  EXPECT_EQ(b[1].boundaries[0], "more threads than cores (16)");
  EXPECT_EQ(b[1].value, a[1].value);  // the point follows the measured law
  EXPECT_GT(b[1].interval.high - b[1].interval.low, 1.2 * (a[1].interval.high - a[1].interval.low));
}

TEST(TopologyBoundaries, ExtrapPresetFlagsWithoutAnInterval) {
  ModelerOptions options = ModelerOptions::extrap();
  options.predict_at = {32.0};
  options.boundaries = {{16.0, "more threads than cores (16)"}};
  const KernelResult result = fit_kernel(measured_to_eight(), options);
  ASSERT_EQ(result.models.size(), 1u);
  const Prediction& p = result.models[0].predictions.at(0);
  EXPECT_EQ(p.boundaries.size(), 1u);
  EXPECT_EQ(p.interval.low, p.interval.high);
}

}  // namespace
}  // namespace ompscale::modeler

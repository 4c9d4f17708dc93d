// Sampled totals calibrated to the process time (regions/report/calibration.h), on profiles made
// by hand: the outermost regions and serial gaps tile the process time.
#include <gtest/gtest.h>

#include "regions/report/calibration.h"
#include "regions/report/regions.h"

namespace ompscale::regions::report {
namespace {

RegionRecord region(long long id, RegionKind kind, double wall_ns, double se_ns, int level = 0) {
  RegionRecord r;
  r.id = id;
  r.kind = kind;
  r.nesting_level = level;
  r.executions = 1000;
  r.executions_measured = se_ns > 0 ? 100 : 1000;
  r.weighted = true;
  r.wall_ns = wall_ns;
  r.wall_se_ns = se_ns;
  return r;
}

TEST(ReportCalibration, EveryExecutionMeasuredNeedsNone) {
  Profile p;
  p.process_ns = 1e9;
  p.regions = {region(0, RegionKind::kParallel, 0.7e9, 0),
               region(1, RegionKind::kSerial, 0.3e9, 0)};
  const Calibration c = calibrate(p);
  EXPECT_DOUBLE_EQ(c.coverage, 1.0);
  EXPECT_TRUE(c.factors.empty());
}

// A sample that missed (or caught) the preempted executions.
TEST(ReportCalibration, SampledRegionsTakeTheDifferenceInProportionToTheirVariance) {
  Profile p;
  p.process_ns = 1e9;
  p.regions = {region(0, RegionKind::kParallel, 0.2e9, 0.03e9),  // variance 9e14
               region(1, RegionKind::kParallel, 0.3e9, 0.01e9),  // variance 1e14
               region(2, RegionKind::kSerial, 0.1e9, 0),         // measured in full
               region(3, RegionKind::kParallel, 5e9, 1e9, 1)};   // nested: not in the tiling
  const Calibration c = calibrate(p);
  EXPECT_NEAR(c.coverage, 0.6, 1e-12);
  EXPECT_NEAR(c.factor(0), (0.2 + 0.9 * 0.4) / 0.2, 1e-12);
  EXPECT_NEAR(c.factor(1), (0.3 + 0.1 * 0.4) / 0.3, 1e-12);
  EXPECT_DOUBLE_EQ(c.factor(2), 1.0);
  EXPECT_DOUBLE_EQ(c.factor(3), 1.0);
  // The calibrated times add up to the process time, and costs keep their share of the time.
  EXPECT_NEAR(0.2 * c.factor(0) + 0.3 * c.factor(1) + 0.1, 1.0, 1e-12);
  ThreadRecord t;
  t.imbalance_ns = 0.05e9;
  p.regions[0].threads = {t};
  const RegionCosts costs = run_costs(p.regions[0], nullptr, c.factor(0));
  EXPECT_NEAR(costs.imbalance / costs.time, 0.05 / 0.2, 1e-12);
}

TEST(ReportCalibration, AnOverestimateShrinksButNeverBelowZero) {
  Profile p;
  p.process_ns = 1e9;
  p.regions = {region(0, RegionKind::kParallel, 3e9, 1e9),
               region(1, RegionKind::kSerial, 0.5e9, 0)};
  EXPECT_NEAR(calibrate(p).factor(0), 0.5 / 3, 1e-12);
  p.regions[1].wall_ns = 2e9;  // the full measurement alone exceeds the process time
  EXPECT_DOUBLE_EQ(calibrate(p).factor(0), 0.0);
}

}  // namespace
}  // namespace ompscale::regions::report

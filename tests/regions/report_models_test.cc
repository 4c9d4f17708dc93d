// Models in the report: one over threads per (region, input) with predictions and the efficiency
// they imply; one over threads and input size when there are 3 or more sized inputs.

#include <gtest/gtest.h>

#include <cmath>

#include "common/error.h"
#include "modeler/prediction/predict.h"
#include "regions/report/models.h"
#include "tests/regions/report_fixtures.h"

namespace ompscale::regions::report {
namespace {

using testing::fixture_report;
using testing::region_by_label;

TEST(ReportModels, ThreadModelPerRegionAndInputWithDefaultPredictions) {
  const Report& report = fixture_report("mandel-static");
  EXPECT_EQ(report.predict_at, (std::vector<double>{16, 32}));
  // 4 regions x 2 inputs, each at 4 thread counts.
  ASSERT_EQ(report.models.thread_models.size(), 8u);
  ASSERT_EQ(report.models.results.size(), 8u);
  EXPECT_EQ(report.models.dataset.parameter, "threads");
  for (const RegionReport& r : report.regions) {
    ASSERT_EQ(r.thread_models.size(), 2u) << r.region.label;
    const ThreadModel* tm = r.thread_model(report.models, "800");
    ASSERT_NE(tm, nullptr);
    const modeler::ClassModel& cm = report.models.results[tm->result].models.front();
    ASSERT_EQ(tm->predicted.size(), 2u);
    const PointAnalysis& base = r.reference_series().points.front();
    for (const PredictedPoint& p : tm->predicted) {
      EXPECT_DOUBLE_EQ(p.time, modeler::predict(cm.predictive, p.threads, 0.9).value);
      EXPECT_NEAR(p.efficiency, base.time * base.threads / (p.threads * p.time),
                  1e-9 * p.efficiency);
      EXPECT_LE(p.low, p.time);
      EXPECT_GE(p.high, p.time);
    }
  }
  // The serial region does not change with threads: a constant model.
  const RegionReport& serial = region_by_label(report, "serial before mandel.c:42 (main)");
  const modeler::ClassModel& cm =
      report.models.results[serial.thread_model(report.models, "800")->result].models.front();
  EXPECT_EQ(cm.growth, modeler::GrowthClass::kConstant);
}

TEST(ReportModels, StrongScalingRegionModelledAsOneOverThreads) {
  const Report& report = fixture_report("locks");
  const RegionReport& r = region_by_label(report, "lockbench.c:30 (private_locks)");
  const modeler::ClassModel& cm =
      report.models.results[r.thread_model(report.models, "2000000")->result].models.front();
  ASSERT_EQ(cm.model.terms.size(), 1u);
  EXPECT_EQ(cm.model.terms[0].shape, (modeler::TermShape{-1.0, 0}));
  EXPECT_NEAR(r.thread_model(report.models, "2000000")->predicted[0].efficiency, 1.0, 0.05);
}

TEST(ReportModels, PredictionsAtRequestedThreadCounts) {
  ReportOptions options;
  options.predict_at = {12, 64};
  const Report report = build_report(read_run_directory(testing::fixture_dir("locks")), options);
  EXPECT_EQ(report.predict_at, (std::vector<double>{12, 64}));
  for (const ThreadModel& tm : report.models.thread_models) {
    ASSERT_EQ(tm.predicted.size(), 2u);
    EXPECT_EQ(tm.predicted[0].threads, 12);
    EXPECT_EQ(tm.predicted[1].threads, 64);
  }
}

TEST(ReportModels, ModelOverThreadsAndInputSize) {
  const Report& report = fixture_report("stencil-inputs");
  EXPECT_EQ(report.input_sizes, (std::vector<double>{256, 512, 1024, 2048}));
  const RegionReport& sweep = region_by_label(report, "stencil.c:88 (sweep)");
  ASSERT_TRUE(sweep.input_model.has_value());
  const InputModel& im = report.models.input_models[*sweep.input_model];
  const modeler::TwoParameterModel& m = im.result.model;
  // The work, 2e-8 s * n^2 per execution over 100 executions, is shared by t threads.
  ASSERT_TRUE(m.uses_first() && m.uses_second());
  EXPECT_NE(m.product_coefficient, 0.0);
  EXPECT_EQ(m.first, (modeler::TermShape{-1.0, 0}));
  EXPECT_EQ(m.second, (modeler::TermShape{2.0, 0}));
  EXPECT_NEAR(m.product_coefficient, 100 * 2e-8, 100 * 2e-8 * 0.02);
  EXPECT_LT(im.result.stats.cv_error, 2.0);
  // Predictions at 16 and 32 threads for each of the 4 inputs.
  ASSERT_EQ(im.predicted.size(), 8u);
  for (const InputPrediction& p : im.predicted) {
    EXPECT_DOUBLE_EQ(p.time, m.evaluate(p.threads, p.size));
    EXPECT_GT(p.efficiency, 0.0);
  }
  // The largest input keeps its efficiency longest.
  EXPECT_GT(im.predicted[3].efficiency, im.predicted[0].efficiency);
}

TEST(ReportModels, TwoInputsAreTooFewForAnInputModel) {
  const Report& report = fixture_report("mandel-static");
  EXPECT_TRUE(report.models.input_models.empty());
  bool noted = false;
  for (const std::string& n : report.notes) {
    noted = noted || n.find("2 input size(s)") != std::string::npos;
  }
  EXPECT_TRUE(noted);
}

TEST(ReportModels, InputSizesFromTheCommandLine) {
  ReportOptions options;
  options.input_sizes = {1, 2, 4, 8};
  const Report report =
      build_report(read_run_directory(testing::fixture_dir("stencil-inputs")), options);
  EXPECT_EQ(report.input_sizes, options.input_sizes);
  EXPECT_FALSE(report.models.input_models.empty());
  options.input_sizes = {1, 2};
  EXPECT_THROW(build_report(read_run_directory(testing::fixture_dir("stencil-inputs")), options),
               UsageError);
}

}  // namespace
}  // namespace ompscale::regions::report

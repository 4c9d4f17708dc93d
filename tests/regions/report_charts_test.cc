// The charts of `ompscan report --svg` as a person sees them: every chart renders to
// PNG (rsvg-convert), titles stay inside the chart, the heat maps carry a colour scale, and the
// speedup legend says "measured" for runs without inputs.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>

#include "common/temporary_directory.h"
#include "regions/report/writers.h"
#include "tests/regions/report_fixtures.h"
#include "tests/support/svg_check.h"

namespace ompscale::regions::report {
namespace {

namespace fs = std::filesystem;
using testing::fixture_report;

TEST(ReportCharts, EveryChartRendersAndItsTextStaysInside) {
  const std::string pattern = ompscale::make_temporary_directory("ompscan-charts");
  const fs::path dir = pattern;
  const bool renderer = fs::exists("/usr/bin/rsvg-convert");
  std::size_t charts = 0;
  for (const char* fixture : {"mandel-static", "stencil-inputs", "locks", "tasks"}) {
    for (const auto& [name, svg] : format_svgs(fixture_report(fixture))) {
      ++charts;
      EXPECT_EQ(test_support::text_problems(svg), "") << fixture << " " << name;
      if (renderer) {
        EXPECT_EQ(test_support::render_png(svg, dir, fixture + std::string("-") + name), "")
            << fixture << " " << name;
      }
      if (name.rfind("efficiency-", 0) == 0) {
        EXPECT_NE(svg.find("efficiency-scale"), std::string::npos) << name;
        EXPECT_GE(test_support::svg_width(svg), 440.0) << name;
      }
    }
  }
  EXPECT_GT(charts, 10u);
  fs::remove_all(dir);
  if (!renderer) GTEST_SKIP() << "rsvg-convert (librsvg2-bin) is not installed";
}

TEST(ReportCharts, SpeedupLegendNamesInputsOnlyWhenThereAreSome) {
  Report r = fixture_report("locks");
  for (RegionReport& region : r.regions) {
    for (SeriesAnalysis& s : region.series) s.input.clear();  // as runs made without --inputs
  }
  r.measurements.inputs.resize(1);
  r.measurements.inputs[0].name.clear();
  const auto charts = format_svgs(r);
  ASSERT_FALSE(charts.empty());
  EXPECT_NE(charts[0].second.find(">measured</text>"), std::string::npos);
  EXPECT_EQ(charts[0].second.find(">input </text>"), std::string::npos);
}

// The ideal speedup is drawn as the measured lines are, straight between the thread counts the
// chart shows; sampled along the log2 axis, it was a curve beside straight measured lines.
TEST(ReportCharts, IdealSpeedupIsStraightBetweenTheChartsThreadCounts) {
  const Report r = fixture_report("mandel-static");
  const auto charts = format_svgs(r);
  ASSERT_FALSE(charts.empty());
  const std::string& svg = charts[0].second;
  const std::string marker = "stroke=\"#7f7f7f\" stroke-dasharray=\"6,4\"/>";
  const auto end = svg.find(marker);
  ASSERT_NE(end, std::string::npos) << svg;
  const auto start = svg.rfind("d=\"", end);
  const std::string path = svg.substr(start + 3, svg.find('"', start + 3) - start - 3);
  std::set<double> threads;
  for (const SeriesAnalysis& s : r.regions.front().series) {
    for (const PointAnalysis& p : s.points) threads.insert(p.threads);
  }
  const auto vertices = static_cast<std::size_t>(std::count(path.begin(), path.end(), ','));
  EXPECT_GE(vertices, threads.size()) << path;
  EXPECT_LE(vertices, threads.size() + 8) << path;  // and the predicted ones, at most a few
}

}  // namespace
}  // namespace ompscale::regions::report

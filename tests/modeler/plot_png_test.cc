// `modeler plot` as a person sees it: every figure renders to PNG (rsvg-convert), no
// title runs past its panel or into its neighbour, a single far outlier does not flatten a panel,
// and a logarithmic value axis keeps few labels.

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "common/temporary_directory.h"
#include "modeler/fit.h"
#include "modeler/io/plot_svg.h"
#include "modeler/io/readers.h"
#include "tests/support/svg_check.h"

namespace ompscale::modeler {
namespace {

namespace fs = std::filesystem;
using test_support::render_png;
using test_support::svg_texts;
using test_support::text_problems;

class PlotPng : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string pattern = ompscale::make_temporary_directory("ompscale-plot");
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  // The figure is clean and renders; `name` tells failures apart.
  void expect_good(const std::string& svg, const std::string& name) {
    EXPECT_EQ(text_problems(svg), "") << name;
    if (!fs::exists("/usr/bin/rsvg-convert")) GTEST_SKIP() << "rsvg-convert (librsvg2-bin)";
    EXPECT_EQ(render_png(svg, dir_, name), "") << name;
  }
  fs::path dir_;
};

Dataset example() {
  ReadOptions read;
  read.param_column = "threads";
  read.value_column = "value";
  read.key_columns = {"construct", "unit"};
  return read_dataset(
      std::string(OMPSCALE_SOURCE_DIR) + "/data/examples/barrier-algorithms-intel-16t.csv", read);
}

TEST_F(PlotPng, TheShippedExampleRendersLinearAndLogarithmic) {
  const Dataset data = example();
  const auto results = fit_dataset(data, ModelerOptions{});
  expect_good(plot_svg(data, results), "example");
  PlotOptions log;
  log.log_y = true;
  expect_good(plot_svg(data, results, log), "example-log");
}

TEST_F(PlotPng, LongKeysStayInsideTheirPanels) {
  // Keys as ompbench writes them: the titles are far wider than a panel.
  Dataset data;
  data.parameter = "threads";
  data.key_columns = {"construct", "bind", "runtime", "runtime_version", "compiler", "unit"};
  for (const char* construct : {"firstprivate_array", "for_dynamic_nonmonotonic", "copyprivate"}) {
    for (const char* runtime : {"libgomp", "libomp"}) {
      std::vector<Sample> samples;
      for (double t : {1.0, 2.0, 4.0, 8.0}) {
        for (int r = 0; r < 5; ++r) samples.push_back({t, 0.1 * t * (1.0 + 0.01 * r)});
      }
      data.kernels.push_back(Kernel::from_samples(
          {construct, "spread", runtime, "12.2.0-with-a-long-version", "gcc-12.2.0-debian", "us"},
          samples));
    }
  }
  expect_good(plot_svg(data, fit_dataset(data, ModelerOptions{})), "long-keys");
}

// Labels of the value axis: right-aligned texts left of the plot.
std::vector<std::string> y_labels(const std::string& svg) {
  std::vector<std::string> labels;
  std::regex tick(R"(<text x="[0-9.]+" y="[0-9.]+" font-size="10.5" fill="#222222" )"
                  R"(text-anchor="end">([^<]*)</text>)");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tick); it != std::sregex_iterator();
       ++it) {
    if (!(*it)[1].str().empty()) labels.push_back((*it)[1]);
  }
  return labels;
}

TEST_F(PlotPng, OneFarOutlierIsMarkedNotScaledTo) {
  // 20 repetitions near 1 us and one valid 8000 us at 4 threads: the axis stays near the data.
  Dataset data;
  data.parameter = "threads";
  data.key_columns = {"construct"};
  std::vector<Sample> samples;
  for (double t : {1.0, 2.0, 4.0, 8.0}) {
    for (int r = 0; r < 20; ++r) samples.push_back({t, t * (1.0 + 0.005 * r)});
  }
  samples.push_back({4.0, 8000.0});
  data.kernels.push_back(Kernel::from_samples({"barrier"}, samples));
  ModelerOptions options;
  options.aggregation = Aggregation::kMedian;
  const std::string svg = plot_svg(data, fit_dataset(data, options));
  expect_good(svg, "outlier");
  EXPECT_NE(svg.find("class=\"off-scale\""), std::string::npos);
  EXPECT_NE(svg.find("1 outlier above the axis, up to 8000"), std::string::npos);
  for (const std::string& label : y_labels(svg)) EXPECT_LT(std::stod(label), 100.0) << label;
  EXPECT_NE(svg.find("quartiles, whiskers to 1.5 IQR"), std::string::npos);
}

TEST_F(PlotPng, LogarithmicAxisKeepsFewLabels) {
  // A linear law through nearly zero at one thread: its curve reaches towards 1e-18.
  Dataset data;
  data.parameter = "threads";
  data.key_columns = {"k"};
  std::vector<Sample> samples;
  for (double t : {1.0, 2.0, 4.0, 8.0, 16.0}) samples.push_back({t, (t - 1.0) + 1e-18});
  data.kernels.push_back(Kernel::from_samples({"near-zero"}, samples));
  PlotOptions log;
  log.log_y = true;
  const std::string svg = plot_svg(data, fit_dataset(data, ModelerOptions{}), log);
  expect_good(svg, "log-axis");
  EXPECT_LE(y_labels(svg).size(), 8u);
}

}  // namespace
}  // namespace ompscale::modeler

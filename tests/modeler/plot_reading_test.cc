// `modeler plot` read without hovering: long panel titles wrap instead of being cut, outliers
// beyond the value axis are explained in the legend and counted beside their mark, and the panels
// of one kernel on two runtimes share their value axis.

#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "modeler/fit.h"
#include "modeler/io/plot_svg.h"
#include "modeler/io/readers.h"
#include "tests/support/svg_check.h"

namespace ompscale::modeler {
namespace {

using test_support::svg_texts;
using test_support::text_problems;

Dataset dataset_from_csv(const std::string& text, const std::vector<std::string>& key) {
  ReadOptions read;
  read.param_column = "threads";
  read.value_column = "value";
  read.key_columns = key;
  return parse_dataset(text, "plot.csv", read);
}

// Kernels at 1..16 threads with three close repetitions, `scale` * (1 + log2(t)).
std::string rows(const std::string& key_values, double scale) {
  std::string out;
  for (int t : {1, 2, 4, 8, 16}) {
    for (double noise : {0.99, 1.0, 1.01}) {
      out += key_values + "," + std::to_string(t) + "," +
             std::to_string(scale * (1.0 + std::log2(t)) * noise) + "\n";
    }
  }
  return out;
}

// The text of every <text> of `svg` whose attributes contain `attribute`, in order.
std::vector<std::string> texts_with(const std::string& svg, const std::string& attribute) {
  std::vector<std::string> out;
  static const std::regex element(R"(<text ([^>]*)>([^<]*)</text>)");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), element);
       it != std::sregex_iterator(); ++it) {
    if ((*it)[1].str().find(attribute) != std::string::npos) out.push_back((*it)[2]);
  }
  return out;
}

TEST(PlotReading, LongPanelTitlesWrapInsteadOfBeingCut) {
  const std::string csv =
      "construct,bind,places,threads,value\n" +
      rows("parallel_for_dynamic_chunked,close,\"{0,1,2,3},{4,5,6,7}\"", 1.0) +
      rows("parallel_for_guided_chunked_loop,spread,\"{0,2,4,6},{1,3,5,7}\"", 2.0);
  const Dataset data = dataset_from_csv(csv, {"construct", "bind", "places"});
  const std::string svg = plot_svg(data, fit_dataset(data, ModelerOptions{}));
  const std::vector<std::string> titles = texts_with(svg, "panel-title");
  ASSERT_EQ(titles.size(), 4u) << svg;  // two panels, two lines each
  for (const std::string& line : titles) EXPECT_EQ(line.find("\u2026"), std::string::npos) << line;
  EXPECT_NE(titles[1].find("places={0,1,2,3},{4,5,6,7}"), std::string::npos) << titles[1];
  EXPECT_EQ(text_problems(svg), "");
}

TEST(PlotReading, OutliersBeyondTheAxisAreExplainedAndCounted) {
  std::string csv = "construct,threads,value\n" + rows("barrier", 1.0);
  for (int i = 0; i < 5; ++i) csv += "barrier,4,3.0\n";
  csv += "barrier,4,90\nbarrier,4,95\n";  // far beyond the whiskers and the axis
  const Dataset data = dataset_from_csv(csv, {"construct"});
  const std::string svg = plot_svg(data, fit_dataset(data, ModelerOptions{}));
  ASSERT_NE(svg.find("class=\"off-scale\""), std::string::npos) << svg;
  const std::vector<std::string> legend = texts_with(svg, "font-size=\"11.5\"");
  bool explained = false;
  for (const std::string& text : legend)
    explained |= text.starts_with("outliers beyond the value axis");
  EXPECT_TRUE(explained) << svg;
  EXPECT_EQ(texts_with(svg, "off-scale-count"), std::vector<std::string>{"2"});
}

TEST(PlotReading, OneKernelOnTwoRuntimesSharesTheValueAxis) {
  const std::string csv = "construct,runtime,threads,value\n" + rows("barrier,libgomp", 1.0) +
                          rows("barrier,libomp", 8.0) + rows("single,libgomp", 0.1);
  const Dataset data = dataset_from_csv(csv, {"construct", "runtime"});
  const std::string svg = plot_svg(data, fit_dataset(data, ModelerOptions{}));
  // The y tick labels of each panel (right-aligned texts), panel by panel.
  std::vector<std::vector<std::string>> ticks;
  std::size_t at = 0;
  while ((at = svg.find("class=\"panel\"", at)) != std::string::npos) {
    const std::size_t end = svg.find("class=\"panel\"", at + 1);
    ticks.push_back(texts_with(svg.substr(at, end - at), "text-anchor=\"end\""));
    at += 1;
  }
  ASSERT_EQ(ticks.size(), 3u);
  EXPECT_EQ(ticks[0], ticks[1]);  // barrier on libgomp and on libomp
  EXPECT_NE(ticks[0], ticks[2]);  // single keeps its own
}

}  // namespace
}  // namespace ompscale::modeler

#include "microbench/driver/summary.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "common/error.h"
#include "microbench/result_row.h"

namespace ompscale::microbench {
namespace {

using ::testing::HasSubstr;

std::string results(const std::vector<std::pair<double, bool>>& values) {
  std::string text = results_header();
  int rep = 0;
  for (const auto& [value, valid] : values) {
    ResultRow row;
    row.construct = "barrier";
    row.method = "epcc";
    row.metric = "overhead";
    row.threads = 2;
    row.runtime = "libgomp";
    row.bind = "spread";
    row.rep = rep++;
    row.value = value;
    row.valid = valid;
    text += format_row(row);
  }
  return text;
}

TEST(Summary, EpccStatisticsPerConfiguration) {
  // 20 values near 1 and one far outlier; one invalid value that must not count.
  std::vector<std::pair<double, bool>> values;
  for (int i = 0; i < 20; ++i) values.push_back({1.0 + 0.01 * (i % 5), true});
  values.push_back({9.0, true});
  values.push_back({100.0, false});
  SummaryOptions csv;
  csv.format = "csv";
  const std::string out = summarize_results(results(values), "r.csv", csv);
  const std::string line = out.substr(out.find('\n') + 1);
  // n=21, median 1.02, min 1.0, max 9.0, one outlier (> 3 sd), one invalid.
  EXPECT_THAT(line, HasSubstr(",21,"));
  EXPECT_THAT(line, HasSubstr(",1.020000,1.000000,9.000000,"));
  EXPECT_THAT(line, HasSubstr(",1,1,us"));
  SummaryOptions all = csv;
  all.include_invalid = true;
  EXPECT_THAT(summarize_results(results(values), "r.csv", all), HasSubstr(",22,"));
}

TEST(Summary, ArraySizesAndThreadCountsInNumericOrder) {
  // Written in the order a sweep writes them; as text, 19683 came before 27 and 10 before 2.
  std::string text = results_header();
  for (const int threads : {2, 10}) {
    for (const char* size : {"1", "27", "729", "19683"}) {
      for (int rep = 0; rep < 3; ++rep) {
        ResultRow row;
        row.construct = "firstprivate_array";
        row.method = "direct";
        row.metric = "avg_cost";
        row.threads = threads;
        row.runtime = "libgomp";
        row.bind = "spread";
        row.param = "array_size";
        row.param_value = size;
        row.rep = rep;
        row.value = 1.0 + rep;
        row.valid = true;
        text += format_row(row);
      }
    }
  }
  SummaryOptions csv;
  csv.format = "csv";
  const std::string out = summarize_results(text, "r.csv", csv);
  std::vector<std::string> order;  // param_value and threads of each row
  std::istringstream lines(out.substr(out.find('\n') + 1));
  for (std::string line; std::getline(lines, line);) {
    const auto field = [&](int n) {
      std::size_t start = 0;
      for (int i = 0; i < n; ++i) start = line.find(',', start) + 1;
      return line.substr(start, line.find(',', start) - start);
    };
    order.push_back(field(7) + "/" + field(8));  // param_value, threads
  }
  EXPECT_THAT(order, ::testing::ElementsAre("1/2", "1/10", "27/2", "27/10", "729/2", "729/10",
                                            "19683/2", "19683/10"));
}

TEST(Summary, ConfidenceIntervalIsStudentT) {
  // Values 1..5: mean 3, sd 1.5811, t(0.975, 4) = 2.7764 -> half width 1.9632.
  const std::string out = summarize_results(
      results({{1, true}, {2, true}, {3, true}, {4, true}, {5, true}}), "r.csv", {"csv", false});
  EXPECT_THAT(out, HasSubstr(",3.000000,3.000000,1.000000,5.000000,1.581139,1.036"));
  EXPECT_THAT(out, HasSubstr(",4.963"));
}

TEST(Summary, TextFitsATerminalWithTheConfigurationOnItsOwnLine) {
  const std::string text = results({{1, true}, {2, true}, {3, true}});
  SummaryOptions wide;  // width 0: a file or --wide, one line per configuration
  const std::string whole = summarize_results(text, "r.csv", wide);
  EXPECT_THAT(whole, HasSubstr("barrier epcc overhead libgomp spread"));
  EXPECT_THAT(whole, ::testing::ContainsRegex("libgomp spread +2 +3 +2\\.0000"));
  SummaryOptions narrow;
  narrow.width = 100;
  const std::string fitted = summarize_results(text, "r.csv", narrow);
  std::istringstream lines(fitted);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 100u) << line;
  EXPECT_THAT(fitted, HasSubstr("\nbarrier epcc overhead libgomp spread\n    2     3     2.0000"));
}

TEST(Summary, ForeignFileIsAnInputError) {
  EXPECT_THROW(summarize_results("a,b\n1,2\n", "x.csv", {}), InputError);
  EXPECT_THROW(summarize_results("", "x.csv", {}), InputError);
}

}  // namespace
}  // namespace ompscale::microbench

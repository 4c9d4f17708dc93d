#include "microbench/driver/results_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.h"
#include "microbench/driver/plan.h"
#include "microbench/result_row.h"

namespace ompscale::microbench {
namespace {

class ResultsFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/ompbench-results-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    path_ = dir_ + "/results.csv";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static std::string contents(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  static ResultRow row(int rep, bool valid, const std::string& metric = "avg_cost") {
    ResultRow r;
    r.construct = "barrier";
    r.method = "direct";
    r.metric = metric;
    r.threads = 2;
    r.bind = "spread";
    r.places = "cores";
    r.runtime = "libgomp";
    r.rep = rep;
    r.value = 0.25;
    r.valid = valid;
    return r;
  }
  std::string key() const {
    return config_key("barrier", "direct", "2", "spread", "cores", "libgomp", "");
  }

  std::string dir_;
  std::string path_;
};

TEST_F(ResultsFileTest, NewFileGetsTheHeader) {
  std::vector<std::string> warnings;
  { ResultsFile file = ResultsFile::open(path_, warnings); }
  EXPECT_EQ(contents(path_), results_header());
  EXPECT_TRUE(warnings.empty());
}

TEST_F(ResultsFileTest, ResumeCountsValidValuesAndNextRep) {
  std::vector<std::string> warnings;
  {
    ResultsFile file = ResultsFile::open(path_, warnings);
    file.append(format_row(row(0, true)) + format_row(row(1, false)) + format_row(row(2, true)) +
                format_row(row(2, true, "min_cost")));
  }
  ResultsFile resumed = ResultsFile::open(path_, warnings);
  EXPECT_EQ(resumed.valid_values(key(), "avg_cost"), 2);
  EXPECT_EQ(resumed.valid_values(key(), "min_cost"), 1);
  EXPECT_EQ(resumed.next_rep(key()), 3);
  EXPECT_EQ(resumed.valid_values("other", "avg_cost"), 0);
  EXPECT_EQ(resumed.existing_rows(), 4);
}

TEST_F(ResultsFileTest, IncompleteLastLineIsRemovedWithAWarning) {
  {
    std::ofstream out(path_);
    out << results_header() << format_row(row(0, true)) << "barrier,direct,avg_co";
  }
  std::vector<std::string> warnings;
  ResultsFile file = ResultsFile::open(path_, warnings);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find(path_ + ":3:"), std::string::npos) << warnings[0];
  EXPECT_EQ(contents(path_), results_header() + format_row(row(0, true)));
  EXPECT_EQ(file.valid_values(key(), "avg_cost"), 1);
}

TEST_F(ResultsFileTest, ForeignFileIsRefusedAndKept) {
  {
    std::ofstream out(path_);
    out << "a,b,c\n1,2,3\n";
  }
  std::vector<std::string> warnings;
  try {
    ResultsFile::open(path_, warnings);
    FAIL() << "accepted a foreign CSV";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 1u);
    EXPECT_NE(std::string(e.what()).find("header differs"), std::string::npos);
  }
  EXPECT_EQ(contents(path_), "a,b,c\n1,2,3\n");
}

TEST_F(ResultsFileTest, RowWithWrongFieldCountNamesItsLine) {
  {
    std::ofstream out(path_);
    out << results_header() << format_row(row(0, true)) << "barrier,direct\n";
  }
  std::vector<std::string> warnings;
  try {
    ResultsFile::open(path_, warnings);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 3u);
  }
}

// A fuzzer found a last row with rep 2147483647: resuming computed rep + 1, a signed overflow.
TEST_F(ResultsFileTest, RepOutsideTheRepetitionRangeNamesItsLineAndKeepsTheFile) {
  for (const char* rep : {"2147483647", "-1", "1e3", "", "x"}) {
    std::string bad = format_row(row(7, true));
    const std::size_t first = bad.find(",7,");
    ASSERT_NE(first, std::string::npos) << bad;
    bad.replace(first, 3, std::string(",") + rep + ",");
    const std::string text = results_header() + format_row(row(0, true)) + bad;
    {
      std::ofstream out(path_);
      out << text;
    }
    std::vector<std::string> warnings;
    try {
      ResultsFile::open(path_, warnings);
      ADD_FAILURE() << "accepted rep '" << rep << "'";
    } catch (const InputError& e) {
      EXPECT_EQ(e.line(), 3u) << rep;
      EXPECT_NE(std::string(e.what()).find("repetition number"), std::string::npos) << e.what();
    }
    EXPECT_EQ(contents(path_), text);
  }
}

TEST(ResultRow, FormatsEveryColumnInHeaderOrder) {
  ResultRow r;
  r.construct = "for_static";
  r.method = "epcc";
  r.metric = "overhead";
  r.threads = 4;
  r.thread_class = "PO2";
  r.bind = "close";
  r.places = "cores";
  r.runtime = "libomp";
  r.runtime_version = "14.0.6";
  r.compiler = "clang-14.0.6";
  r.platform = "host, with comma";
  r.param = "chunk";
  r.param_value = "16";
  r.rep = 7;
  r.value = 1.5;
  r.valid = false;
  r.canary_ns = 250;
  r.run_id = "r1";
  r.timestamp = "2026-11-22T01:02:03Z";
  r.oversubscribed = true;
  EXPECT_EQ(format_row(r),
            "for_static,epcc,overhead,4,PO2,close,cores,libomp,14.0.6,clang-14.0.6,\"host, with "
            "comma\",chunk,16,7,1.500000,us,0,250.0,r1,2026-11-22T01:02:03Z,1\n");
}

}  // namespace
}  // namespace ompscale::microbench

// A new user's first hour with `modeler`: the shipped example and degenerate inputs give
// models or reasons (never a crash), fewer than 3 thread counts say there is no model, relative
// budgets say what they are relative to, output fits a 120-column terminal and repeated warnings
// are said once. The built binary runs as a child process, as in cli_test.cc.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "common/temporary_directory.h"
#include "tests/support/process.h"

namespace {

namespace fs = std::filesystem;
using ompscale::test_support::Outcome;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kExample =
    std::string(OMPSCALE_SOURCE_DIR) + "/data/examples/barrier-algorithms-intel-16t.csv";

using ompscale::test_support::lines_of;

std::size_t widest(const std::string& text) {
  std::size_t w = 0;
  for (const std::string& line : lines_of(text)) w = std::max(w, line.size());
  return w;
}

class FirstHour : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string pattern = ompscale::make_temporary_directory("ompscale-first-hour");
    dir_ = pattern;
    ::unsetenv("COLUMNS");
  }
  void TearDown() override {
    ::unsetenv("COLUMNS");
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path write(const std::string& name, const std::string& content) {
    ompscale::test_support::spit(dir_ / name, content);
    return dir_ / name;
  }
  Outcome modeler(const std::vector<std::string>& args) {
    std::vector<std::string> argv{OMPSCALE_MODELER_BIN};
    argv.insert(argv.end(), args.begin(), args.end());
    return ompscale::test_support::run_program(argv, dir_);
  }
  std::vector<std::string> example(std::vector<std::string> more) {
    std::vector<std::string> args{"fit",     kExample, "--param", "threads",
                                  "--value", "value",  "--key",   "construct,unit"};
    args.insert(args.end(), more.begin(), more.end());
    return args;
  }
  fs::path dir_;
};

TEST_F(FirstHour, AllZeroKernelIsTheConstantZero) {
  const fs::path csv = write("zero.csv", "threads,value\n1,0\n2,0\n4,0\n8,0\n");
  const Outcome r = modeler({"fit", csv.string(), "--param", "threads", "--value", "value"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("every aggregated value is 0: the model is the constant 0"));
}

TEST_F(FirstHour, ShippedExampleFitsAndPlotsWithEveryAggregate) {
  // Its DummyBarrier is 0 at every thread count for the median and the minimum.
  for (const char* aggregate : {"median", "min", "trimmed", "mean"}) {
    const Outcome fit = modeler(example({"--aggregate", aggregate}));
    EXPECT_EQ(fit.status, 0) << aggregate << ": " << fit.err;
    EXPECT_THAT(fit.out, HasSubstr("construct=DummyBarrier")) << aggregate;
    std::vector<std::string> plot =
        example({"--aggregate", aggregate, "-o", (dir_ / "p.svg").string()});
    plot[0] = "plot";
    const Outcome svg = modeler(plot);
    EXPECT_EQ(svg.status, 0) << aggregate << ": " << svg.err;
  }
}

TEST_F(FirstHour, TwoThreadCountsShowThePointsAndNoModel) {
  const fs::path csv = write("two.csv", "threads,value\n1,0.5\n1,0.6\n2,1.7\n2,1.8\n");
  const Outcome r = modeler({"fit", csv.string(), "--param", "threads", "--value", "value"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("no model; measured 0.55 at 1, 1.75 at 2 (x3.18)"));
  EXPECT_THAT(r.out, Not(HasSubstr("1.0000")));  // no adjusted R^2 the data cannot support
  EXPECT_THAT(r.out, HasSubstr("2 thread counts (1, 2): a model needs 3 or more"));
}

TEST_F(FirstHour, RelativeBudgetSaysWhatItIsRelativeTo) {
  const Outcome r = modeler(example({"--budget", "4x", "--wide"}));
  ASSERT_EQ(r.status, 0) << r.err;
  // ConstSpinningDisseminationBarrier costs 0.002 us (two clock ticks) at 1 thread: its base is
  // the 2-thread cost, and its budget is in the data's unit.
  bool found = false;
  for (const std::string& line : lines_of(r.out)) {
    if (line.find("ConstSpinningDisseminationBarrier") == std::string::npos) continue;
    if (line.find(" us ") == std::string::npos || line.find(" at 2 ") == std::string::npos)
      continue;
    found = true;
  }
  EXPECT_TRUE(found) << r.out;
  EXPECT_THAT(r.out, HasSubstr("relative to"));
  EXPECT_THAT(r.out, HasSubstr("Searched up to 1048576 threads"));
  EXPECT_THAT(r.out, Not(HasSubstr("searched to")));  // said once, not in every row
  EXPECT_THAT(r.out, HasSubstr("DummyBarrier unit=us [all]: no budget 4x"));
}

TEST_F(FirstHour, ReportFitsA120ColumnTerminalUnlessWide) {
  ::setenv("COLUMNS", "120", 1);
  const std::vector<std::string> args =
      example({"--classes", "auto", "--predict", "64,128", "--budget", "4x"});
  const Outcome narrow = modeler(args);
  ASSERT_EQ(narrow.status, 0) << narrow.err;
  EXPECT_LE(widest(narrow.out), 120u) << narrow.out;
  EXPECT_THAT(narrow.out, HasSubstr("Every kernel has unit=us"));
  std::vector<std::string> wide_args = args;
  wide_args.push_back("--wide");
  const Outcome wide = modeler(wide_args);
  ASSERT_EQ(wide.status, 0) << wide.err;
  EXPECT_GT(widest(wide.out), 120u);
  EXPECT_THAT(wide.out, HasSubstr("construct=DummyBarrier unit=us"));
}

TEST_F(FirstHour, RepeatedWarningsAreSaidOnceWithACount) {
  std::string csv = "kernel,threads,value\n";
  for (int k = 0; k < 6; ++k) {
    // Appended, not "k" + std::to_string(k): GCC 12 warns falsely (-Wrestrict) about the latter.
    std::string name = "k";
    name += std::to_string(k);
    csv += name;
    csv += ",1,1.0\n";
    csv += name;
    csv += ",2,2.0\n";
  }
  const fs::path input = write("many.csv", csv);
  const std::vector<std::string> args{"fit",     input.string(), "--param", "threads",
                                      "--value", "value",        "--key",   "kernel"};
  const Outcome file = modeler(args);
  ASSERT_EQ(file.status, 0) << file.err;
  EXPECT_THAT(file.out,
              HasSubstr("no model: 2 thread counts (1, 2): a model needs 3 or more (6 models):"));
  EXPECT_THAT(file.out, HasSubstr("kernel=k0 [all], kernel=k1 [all]"));
  EXPECT_THAT(file.out, HasSubstr("kernel=k4 [all] and kernel=k5 [all]"));
  ::setenv("COLUMNS", "120", 1);
  const Outcome terminal = modeler(args);
  EXPECT_THAT(terminal.out,
              HasSubstr("kernel=k0 [all], kernel=k1 [all], kernel=k2 [all] and 3 more"));
}

TEST_F(FirstHour, InvalidValuesAreCountedForTheSelectedKernelsOnly) {
  std::string csv =
      "construct,method,metric,threads,thread_class,bind,places,runtime,runtime_version,compiler,"
      "platform,param,param_value,rep,value,unit,valid,canary_ns,run_id,timestamp\n";
  for (const char* construct : {"barrier", "single"}) {
    for (int t : {1, 2, 4}) {
      for (int r = 0; r < 4; ++r) {
        // barrier: 3 values valid=0 (r = 3 at each t); single: none.
        const bool invalid = std::string(construct) == "barrier" && r == 3;
        csv += std::string(construct) + ",epcc,overhead," + std::to_string(t) +
               ",PO2,close,cores,libgomp,12,gcc-12,vm,,," + std::to_string(r) + "," +
               std::to_string(0.1 * t + 0.01 * r) + ",us," + (invalid ? "0" : "1") +
               ",5,r1,2024-05-01T10:00:00Z\n";
      }
    }
  }
  const fs::path input = write("sweep.csv", csv);
  const Outcome all = modeler({"fit", input.string()});
  ASSERT_EQ(all.status, 0) << all.err;
  EXPECT_THAT(all.err, HasSubstr("3 value(s) of these kernels marked valid=0"));
  const Outcome single = modeler({"fit", input.string(), "--where", "construct=single"});
  ASSERT_EQ(single.status, 0) << single.err;
  EXPECT_THAT(single.err, Not(HasSubstr("valid=0")));  // the 3 belong to the barrier
  const Outcome barrier = modeler({"fit", input.string(), "--where", "construct=barrier"});
  EXPECT_THAT(barrier.err, HasSubstr("3 value(s) of these kernels marked valid=0"));
}

TEST_F(FirstHour, MessagesNameTheCause) {
  const Outcome typo = modeler({"fti"});
  EXPECT_EQ(typo.status, 2);
  EXPECT_EQ(typo.err,
            "modeler: unknown subcommand 'fti'; did you mean fit? (see modeler --help)\n");
  const Outcome csv = modeler({"predict", kExample, "--at", "4"});
  EXPECT_EQ(csv.status, 2);
  EXPECT_THAT(csv.err, HasSubstr("not a models.json (it starts with 'construct,threads,rep,value"));
  EXPECT_THAT(csv.err, Not(HasSubstr("syntax error")));
  const Outcome option = modeler({"plot", kExample, "--bogus"});
  EXPECT_THAT(option.err, HasSubstr("(see modeler plot --help)"));
}

TEST_F(FirstHour, HelpFitsA100ColumnTerminal) {
  for (const char* sub : {"", "fit", "plot", "predict", "compare"}) {
    std::vector<std::string> args;
    if (*sub != '\0') args.push_back(sub);
    args.push_back("--help");
    const Outcome help = modeler(args);
    ASSERT_EQ(help.status, 0) << sub << ": " << help.err;
    EXPECT_LE(widest(help.out), 100u) << help.out;
  }
}

// Two runtimes' results: the same constructs, keys that differ in runtime and compiler.
std::string runtime_csv(const std::string& runtime, const std::string& compiler,
                        const std::vector<std::string>& constructs, double slope) {
  std::string csv = "construct,runtime,compiler,threads,value\n";
  for (const std::string& construct : constructs) {
    for (int t : {1, 2, 4, 8, 16}) {
      for (int r = 0; r < 3; ++r) {
        csv += construct + "," + runtime + "," + compiler + "," + std::to_string(t) + "," +
               std::to_string((1.0 + slope * t) * (1.0 + 0.01 * r)) + "\n";
      }
    }
  }
  return csv;
}

class FirstHourCompare : public FirstHour {
 protected:
  fs::path models(const std::string& name, const std::string& csv) {
    const fs::path input = write(name + ".csv", csv);
    const fs::path json = dir_ / (name + ".json");
    const Outcome r =
        modeler({"fit", input.string(), "--param", "threads", "--value", "value", "--key",
                 "construct,runtime,compiler", "--format", "json", "-o", json.string()});
    EXPECT_EQ(r.status, 0) << r.err;
    return json;
  }
};

TEST_F(FirstHourCompare, RuntimesAreComparedOnTheOtherColumns) {
  const fs::path gnu = models("gnu", runtime_csv("libgomp", "gcc-12", {"barrier", "single"}, 0.5));
  const fs::path llvm =
      models("llvm", runtime_csv("libomp", "clang-14", {"barrier", "single"}, 0.2));
  const Outcome r = modeler({"compare", gnu.string(), llvm.string(), "--names", "gnu,llvm"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("compared across runtime, compiler"));
  EXPECT_THAT(r.out, HasSubstr("A: runtime=libgomp compiler=gcc-12"));
  EXPECT_THAT(r.out, HasSubstr("2 models compared"));
  EXPECT_THAT(r.out, Not(HasSubstr("Only in")));

  // Named explicitly; the JSON says what was compared across.
  const Outcome j = modeler(
      {"compare", gnu.string(), llvm.string(), "--across", "runtime,compiler", "--format", "json"});
  ASSERT_EQ(j.status, 0) << j.err;
  EXPECT_THAT(j.out, HasSubstr("\"across\": [\n    \"runtime\",\n    \"compiler\"\n  ]"));
  EXPECT_THAT(j.out, HasSubstr("\"compared\": 2"));
}

TEST_F(FirstHourCompare, NothingToCompareIsAnErrorThatSaysWhy) {
  const fs::path a = models("a", runtime_csv("libgomp", "gcc-12", {"barrier", "single"}, 0.5));
  const fs::path b = models("b", runtime_csv("libgomp", "gcc-12", {"for", "critical"}, 0.5));
  const Outcome r = modeler({"compare", a.string(), b.string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, HasSubstr("nothing to compare"));
  EXPECT_THAT(r.err, HasSubstr("--across construct"));
  EXPECT_EQ(lines_of(r.err).size(), 1u) << r.err;

  const Outcome bad = modeler({"compare", a.string(), b.string(), "--across", "runtim"});
  EXPECT_EQ(bad.status, 2);
  EXPECT_THAT(bad.err, HasSubstr("--across 'runtim': not a key column"));
}

}  // namespace

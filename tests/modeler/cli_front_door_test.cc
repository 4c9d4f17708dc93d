// What a new user met with `modeler` beyond the first model: `compare` of runs that
// `--classes auto` split differently, its order and its summary when nothing has a model,
// `predict --budget` saying why a kernel has no budget, and option values refused before any
// input is read. The built binary runs as a child process, as in cli_test.cc.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "common/temporary_directory.h"
#include "tests/support/process.h"

namespace {

namespace fs = std::filesystem;
using ompscale::test_support::Outcome;
using ::testing::HasSubstr;
using ::testing::Not;

// Thread counts of two classes: powers of two and 16x+8 (the paper's PO2 and ODD).
const std::vector<int> kThreadCounts = {2, 4, 8, 16, 24, 32, 40, 56, 64};

// A CSV of kernels (construct column) that grow with log2(t) at `slope` each, three
// repetitions per thread count, written in the order given.
std::string kernels_csv(const std::vector<std::pair<std::string, double>>& kernels,
                        const std::vector<int>& threads = kThreadCounts) {
  std::string csv = "construct,threads,value\n";
  for (const auto& [name, slope] : kernels) {
    for (int t : threads) {
      for (int rep = 0; rep < 3; ++rep) {
        const double value = (1.0 + slope * std::log2(t)) * (1.0 + 0.002 * (rep - 1));
        csv += name + "," + std::to_string(t) + "," + std::to_string(value) + "\n";
      }
    }
  }
  return csv;
}

class FrontDoor : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ompscale::make_temporary_directory("ompscale-front-door");
    ::unsetenv("COLUMNS");
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string write(const std::string& name, const std::string& content) {
    ompscale::test_support::spit(dir_ / name, content);
    return (dir_ / name).string();
  }
  Outcome modeler(const std::vector<std::string>& args) {
    std::vector<std::string> argv{OMPSCALE_MODELER_BIN};
    argv.insert(argv.end(), args.begin(), args.end());
    return ompscale::test_support::run_program(argv, dir_);
  }
  // models.json of `csv` fitted with `classes`.
  std::string models(const std::string& csv, const std::string& classes, const std::string& name) {
    const Outcome r =
        modeler({"fit", csv, "--param", "threads", "--value", "value", "--key", "construct",
                 "--classes", classes, "--format", "json", "-o", (dir_ / name).string()});
    EXPECT_EQ(r.status, 0) << r.err;
    return (dir_ / name).string();
  }
  fs::path dir_;
};

TEST_F(FrontDoor, CompareSetsClassModelsAgainstTheOtherRunsSingleModel) {
  const std::string csv = write("k.csv", kernels_csv({{"barrier", 0.5}}));
  const std::string split = models(csv, "po2,odd", "split.json");
  const std::string whole = models(csv, "none", "whole.json");
  const Outcome ab = modeler({"compare", split, whole});
  ASSERT_EQ(ab.status, 0) << ab.err;  // was 2: "nothing to compare"
  EXPECT_THAT(ab.out, HasSubstr("po2 / all"));
  EXPECT_THAT(ab.out, HasSubstr("odd / all"));
  EXPECT_THAT(ab.out, HasSubstr("2 models compared, 0 with a different growth class."));
  EXPECT_THAT(ab.out, Not(HasSubstr("Only in")));
  const Outcome ba = modeler({"compare", whole, split, "--format", "json"});
  ASSERT_EQ(ba.status, 0) << ba.err;
  EXPECT_THAT(ba.out, HasSubstr("\"class\": \"all / po2\""));
}

TEST_F(FrontDoor, CompareSaysWhyClassesSplitDifferentlyCannotBeCompared) {
  const std::string csv = write("k.csv", kernels_csv({{"barrier", 0.5}}));
  const std::string paper = models(csv, "po2,odd", "paper.json");
  const std::string own = models(csv, "lo=2,4,8,16,hi=24,32,40,56,64", "own.json");
  const Outcome r = modeler({"compare", paper, own});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "modeler: nothing to compare: the kernels are in both files, but each file split them "
            "into other thread-count classes (A: odd, po2; B: hi, lo); fit both with the same "
            "list (e.g. --classes odd,po2) or both with --classes none\n");
}

TEST_F(FrontDoor, CompareRowsAreSortedByKernel) {
  const std::string csv =
      write("k.csv", kernels_csv({{"single", 0.5}, {"barrier", 1.0}, {"critical", 2.0}}));
  const std::string a = models(csv, "none", "a.json");
  const Outcome r = modeler({"compare", a, a});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto barrier = r.out.find("construct=barrier");
  const auto critical = r.out.find("construct=critical");
  const auto single = r.out.find("construct=single");
  ASSERT_NE(single, std::string::npos) << r.out;
  EXPECT_LT(barrier, critical) << r.out;
  EXPECT_LT(critical, single) << r.out;
}

TEST_F(FrontDoor, CompareWithoutModelsSaysSoInsteadOfCountingThem) {
  const std::string csv =
      write("two.csv", kernels_csv({{"barrier", 0.5}, {"single", 1.0}}, {1, 2}));
  const std::string a = models(csv, "none", "a.json");
  const Outcome r = modeler({"compare", a, a});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("2 kernels in both files, none with a model in both (a model "
                               "needs 3 or more thread counts), so no growth class was compared."));
  EXPECT_THAT(r.out, Not(HasSubstr("models compared")));
}

TEST_F(FrontDoor, PredictWarnsOfABudgetItCannotGive) {
  // "resolved": costs far above the clock's step; "at_resolution": two clock steps of 1 at
  // every thread count, so nothing is measured well enough for a relative budget.
  std::string csv = "construct,threads,value\n";
  for (int t : {1, 2, 4, 8, 16}) {
    for (int rep = 0; rep < 3; ++rep) {
      csv += "resolved," + std::to_string(t) + "," + std::to_string(100 + 10 * t + rep) + "\n";
      csv += "at_resolution," + std::to_string(t) + "," + std::to_string(1 + rep % 2) + "\n";
    }
  }
  const std::string input = write("budget.csv", csv);
  const std::string json = models(input, "none", "m.json");
  const Outcome fitted = modeler({"fit", input, "--param", "threads", "--value", "value", "--key",
                                  "construct", "--budget", "4x"});
  ASSERT_EQ(fitted.status, 0) << fitted.err;
  EXPECT_THAT(fitted.out, HasSubstr("no budget 4x"));
  const Outcome predicted = modeler({"predict", json, "--budget", "4x"});
  ASSERT_EQ(predicted.status, 0) << predicted.err;
  EXPECT_THAT(predicted.out,
              HasSubstr("no budget 4x: no thread count costs 10 times the resolution"))
      << predicted.out;
  // Predicting again from predict's own models.json says it once.
  const std::string again = (dir_ / "again.json").string();
  ASSERT_EQ(modeler({"predict", json, "--budget", "4x", "--format", "json", "-o", again}).status,
            0);
  const Outcome twice = modeler({"predict", again, "--budget", "4x", "--format", "json"});
  const auto first = twice.out.find("no budget 4x");
  ASSERT_NE(first, std::string::npos) << twice.out;
  EXPECT_EQ(twice.out.find("no budget 4x", first + 1), std::string::npos) << twice.out;
}

TEST_F(FrontDoor, BadOptionValuesAreRefusedBeforeAnyInputIsRead) {
  // The input does not exist: a refusal that names the option proves nothing was read first.
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"fit", "missing.csv", "--format", "yaml"},
       "bad --format 'yaml': use text, json, csv or extrap"},
      {{"fit", "missing.csv", "--classes", "po3"}, "--classes"},
      {{"fit", "missing.csv", "--confidence", "1.5"}, "bad --confidence"},
      {{"fit", "missing.csv", "--jobs", "-1"}, "bad --jobs -1"},
      {{"predict", "missing.json", "--at", "64", "--format", "yaml"}, "bad --format 'yaml'"},
      {{"predict", "missing.json", "--at", "64", "--confidence", "0"}, "bad --confidence"},
      {{"compare", "missing.json", "missing.json", "--format", "csv"},
       "bad --format 'csv': use text or json"},
  };
  for (const auto& [args, message] : cases) {
    const Outcome r = modeler(args);
    EXPECT_EQ(r.status, 2) << args[1] << " " << args[args.size() - 2];
    EXPECT_THAT(r.err, HasSubstr(message));
    EXPECT_THAT(r.err, Not(HasSubstr("missing")));
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

}  // namespace

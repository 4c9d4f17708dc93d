// End-to-end tests of the `modeler` command-line tool: the built binary (OMPSCALE_MODELER_BIN) runs
// as a child process (common/child_process.h, argv as given, no shell); its stdout and stderr go to
// files in a per-test temporary directory, which is removed afterwards. Inputs are generated here
// with known laws and small deterministic noise, or taken from tests/data/readers.

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "common/temporary_directory.h"
#include "tests/support/process.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// ---------------------------------------------------------------------------------------------
// Running the binary

using ompscale::test_support::lines_of;
using ompscale::test_support::Outcome;
using ompscale::test_support::slurp;
using ompscale::test_support::spit;

std::vector<std::string> tokens_of(const std::string& line) {
  std::vector<std::string> tokens;
  std::istringstream in(line);
  for (std::string t; in >> t;) tokens.push_back(t);
  return tokens;
}

// The lines of the report section that starts with `title` (up to the next blank line).
std::vector<std::string> section(const std::string& report, const std::string& title) {
  std::vector<std::string> out;
  bool inside = false;
  for (const std::string& line : lines_of(report)) {
    if (!inside) {
      inside = line.rfind(title, 0) == 0;
      continue;
    }
    if (line.empty()) break;
    out.push_back(line);
  }
  return out;
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string pattern = ompscale::make_temporary_directory("ompscale-cli");
    dir_ = pattern;
  }

  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  fs::path path(const std::string& name) const { return dir_ / name; }

  // Runs `modeler args...`; stdin from `stdin_file` (or /dev/null).
  Outcome run(const std::vector<std::string>& args,
              const std::optional<fs::path>& stdin_file = {}) {
    std::vector<std::string> argv{OMPSCALE_MODELER_BIN};
    argv.insert(argv.end(), args.begin(), args.end());
    return ompscale::test_support::run_program(argv, dir_,
                                               stdin_file ? *stdin_file : fs::path("/dev/null"));
  }

  // The files in the temporary directory (to see that nothing stray was left behind).
  std::vector<std::string> listing() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_))
      names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

  fs::path dir_;
};

// ---------------------------------------------------------------------------------------------
// Generated inputs

// Thread counts: the powers of two 1..64 and, in between, 24, 40, 56 (ODD: 16x+8) and 48 (EVEN).
const std::vector<int> kExtrapThreads = {1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64};
constexpr int kRepetitions = 5;

struct Law {
  std::string region;
  std::function<double(double)> cost;
};

double square_law(double t) {
  return 2.0 + 0.5 * t * t;
}
double log_law(double t) {
  return 2.0 + 0.5 * std::log2(t);
}
double constant_law(double) {
  return 3.0;
}

// Relative noise within +-1%, deterministic.
double noise(std::size_t point, int rep) {
  return 1.0 + 0.01 * std::sin(1.7 * static_cast<double>(point) + 2.3 * rep);
}

// Extra-P text, parameter t, metric "time", one REGION block per law. Line numbers: 1 PARAMETER,
// 2 POINTS, then per law REGION, METRIC and one DATA line per thread count.
std::string extrap_text(const std::vector<Law>& laws) {
  std::string s = "PARAMETER t\nPOINTS";
  for (int t : kExtrapThreads) s += " ( " + std::to_string(t) + " )";
  s += "\n";
  char buf[64];
  for (const Law& law : laws) {
    s += "REGION " + law.region + "\nMETRIC time\n";
    for (std::size_t i = 0; i < kExtrapThreads.size(); ++i) {
      s += "DATA";
      for (int r = 0; r < kRepetitions; ++r) {
        std::snprintf(buf, sizeof buf, " %.10g", law.cost(kExtrapThreads[i]) * noise(i, r));
        s += buf;
      }
      s += "\n";
    }
  }
  return s;
}

constexpr const char* kOmpbenchHeader =
    "construct,method,metric,threads,thread_class,bind,places,runtime,runtime_version,compiler,"
    "platform,param,param_value,rep,value,unit,valid,canary_ns,run_id,timestamp";

// Two kernels (barrier: linear, single: constant), threads 1..32, 5 repetitions; the barrier's
// repetition 2 at 4 threads is valid=0 and holds nan (a failed measurement).
std::string ompbench_csv() {
  std::string s = std::string(kOmpbenchHeader) + "\n";
  char buf[512];
  for (const char* construct : {"barrier", "single"}) {
    for (int t : {1, 2, 4, 8, 16, 32}) {
      for (int r = 0; r < kRepetitions; ++r) {
        const double base = std::strcmp(construct, "barrier") == 0 ? 0.1 * t : 0.5;
        const bool failed = std::strcmp(construct, "barrier") == 0 && t == 4 && r == 2;
        std::snprintf(buf, sizeof buf,
                      "%s,epcc,overhead,%d,PO2,close,cores,libgomp,12.2,gcc-12,laptop,,,%d,%s,us,"
                      "%d,5,r1,2024-05-01T10:00:%02dZ\n",
                      construct, t, r,
                      failed ? "nan" : std::to_string(base * (1.0 + 0.01 * (r - 2))).c_str(),
                      failed ? 0 : 1, r);
        s += buf;
      }
    }
  }
  return s;
}

std::string data_file(const std::string& name) {
  return std::string(OMPSCALE_TEST_DATA) + "/readers/" + name;
}

// The report row of one kernel and class (the first line holding both).
std::string row(const std::string& report, const std::string& kernel, const std::string& cls) {
  for (const std::string& line : lines_of(report)) {
    const auto tokens = tokens_of(line);
    if (line.find(kernel) != std::string::npos &&
        std::find(tokens.begin(), tokens.end(), cls) != tokens.end()) {
      return line;
    }
  }
  return {};
}

// In a Predictions section row, the predicted value right after the thread count `t`.
std::optional<double> predicted_at(const std::vector<std::string>& rows, const std::string& t) {
  for (const std::string& line : rows) {
    const auto tokens = tokens_of(line);
    for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
      if (tokens[i] == t) return std::strtod(tokens[i + 1].c_str(), nullptr);
    }
  }
  return std::nullopt;
}

// The whole report but its first line (which names the sources).
std::string body(const std::string& report) {
  const auto nl = report.find('\n');
  return nl == std::string::npos ? std::string() : report.substr(nl + 1);
}

int line_count(const std::string& s) {
  return static_cast<int>(std::count(s.begin(), s.end(), '\n'));
}

const char* const kSquareLabel = "callpath=square metric=time";

class CliFit : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    square_ = path("square.txt");
    log_ = path("log.txt");
    constant_ = path("constant.txt");
    spit(square_, extrap_text({{"square", square_law}}));
    spit(log_, extrap_text({{"square", log_law}}));  // same kernel key, other law
    spit(constant_, extrap_text({{"flat", constant_law}}));
  }
  fs::path square_, log_, constant_;
};

// ---------------------------------------------------------------------------------------------
// 1. fit, text report, --fail-on-worse-than-log

TEST_F(CliFit, TextReportFindsSquareLawAndFlagsIt) {
  const Outcome r = run({"fit", square_.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("Models over t from "));
  const std::string line = row(r.out, kSquareLabel, "all");
  ASSERT_FALSE(line.empty()) << r.out;
  EXPECT_THAT(line, HasSubstr("t^(2)"));
  EXPECT_THAT(line, Not(HasSubstr("log2(t)")));
  EXPECT_THAT(line, HasSubstr("superlinear"));
  EXPECT_THAT(line, HasSubstr("worse-than-log"));
  EXPECT_THAT(line, StartsWith("!"));
  EXPECT_EQ(r.err, "");
}

TEST_F(CliFit, WhereSelectsKernelsByKeyColumn) {
  const std::string input = std::string(OMPSCALE_TEST_DATA) + "/readers/ompbench.csv";
  const Outcome all = run({"fit", input});
  ASSERT_EQ(all.status, 0) << all.err;
  EXPECT_THAT(all.out, HasSubstr("construct=for"));
  const Outcome barrier = run({"fit", input, "--where", "construct=barrier", "--where", "unit=us"});
  ASSERT_EQ(barrier.status, 0) << barrier.err;
  EXPECT_THAT(barrier.out, HasSubstr("construct=barrier"));
  EXPECT_THAT(barrier.out, Not(HasSubstr("construct=for")));
  for (const char* bad : {"construct", "nosuch=1", "construct=nosuch"}) {
    const Outcome r = run({"fit", input, "--where", bad});
    EXPECT_EQ(r.status, 2) << bad;
    EXPECT_THAT(r.err, StartsWith("modeler: --where")) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
}

TEST_F(CliFit, FailOnWorseThanLogExitsOneForSquareLaw) {
  const Outcome r = run({"fit", square_.string(), "--fail-on-worse-than-log"});
  EXPECT_EQ(r.status, 1) << r.err;
  // The report is still written.
  EXPECT_THAT(row(r.out, kSquareLabel, "all"), HasSubstr("t^(2)"));
}

TEST_F(CliFit, FailOnWorseThanLogExitsZeroForConstantAndLogKernels) {
  const Outcome c = run({"fit", constant_.string(), "--fail-on-worse-than-log"});
  EXPECT_EQ(c.status, 0) << c.err;
  const std::string line = row(c.out, "callpath=flat metric=time", "all");
  ASSERT_FALSE(line.empty()) << c.out;
  EXPECT_THAT(line, HasSubstr("constant"));
  EXPECT_THAT(line, Not(HasSubstr("worse-than-log")));

  const Outcome l = run({"fit", log_.string(), "--fail-on-worse-than-log"});
  EXPECT_EQ(l.status, 0) << l.err;
  EXPECT_THAT(row(l.out, kSquareLabel, "all"),
              AllOf(HasSubstr("log2(t)^(1)"), HasSubstr("logarithmic")));
}

// 2. stdin

TEST_F(CliFit, StdinGivesTheSameReportAsTheFile) {
  const Outcome from_file = run({"fit", square_.string()});
  const Outcome from_stdin = run({"fit", "-"}, square_);
  ASSERT_EQ(from_file.status, 0) << from_file.err;
  ASSERT_EQ(from_stdin.status, 0) << from_stdin.err;
  EXPECT_THAT(lines_of(from_stdin.out).at(0), HasSubstr("<stdin>"));
  EXPECT_THAT(lines_of(from_file.out).at(0), HasSubstr(square_.string()));
  EXPECT_FALSE(body(from_file.out).empty());
  EXPECT_EQ(body(from_stdin.out), body(from_file.out));
}

// 3. models.json and predict

class CliPredict : public CliFit {
 protected:
  void SetUp() override {
    CliFit::SetUp();
    models_ = path("models.json");
    const Outcome r = run({"fit", square_.string(), "--format", "json", "-o", models_.string()});
    ASSERT_EQ(r.status, 0) << r.err;
    ASSERT_EQ(r.out, "");  // everything went to the file
    ASSERT_TRUE(fs::exists(models_));
  }
  fs::path models_;
};

TEST_F(CliPredict, ModelsJsonHoldsTheSquareLaw) {
  const auto j = nlohmann::json::parse(slurp(models_));
  EXPECT_EQ(j.at("parameter"), "t");
  ASSERT_EQ(j.at("kernels").size(), 1u);
  const auto& kernel = j.at("kernels").at(0);
  EXPECT_EQ(kernel.at("key").at("callpath"), "square");
  EXPECT_EQ(kernel.at("key").at("metric"), "time");
  const auto& model = kernel.at("models").at(0);
  EXPECT_EQ(model.at("class"), "all");
  EXPECT_THAT(model.at("model").get<std::string>(), HasSubstr("t^(2)"));
  EXPECT_EQ(model.at("worse_than_log"), true);
  ASSERT_EQ(model.at("terms").size(), 1u);
  EXPECT_NEAR(model.at("terms").at(0).at("exponent_value").get<double>(), 2.0, 1e-12);
  EXPECT_NEAR(model.at("terms").at(0).at("coefficient").get<double>(), 0.5, 0.5 * 0.01);
  EXPECT_NEAR(model.at("constant").get<double>(), 2.0, 2.0 * 0.05);
  EXPECT_EQ(model.at("points").size(), kExtrapThreads.size());
}

TEST_F(CliPredict, LawChangeIsRecordedAndChangesOnlyIntervalsBeyondTheRange) {
  const fs::path trusting = path("trusting.json");
  ASSERT_EQ(run({"fit", square_.string(), "--law-change", "0", "--format", "json", "-o",
                 trusting.string()})
                .status,
            0);
  const auto assumed = nlohmann::json::parse(slurp(models_));
  const auto none = nlohmann::json::parse(slurp(trusting));
  EXPECT_EQ(assumed.at("options").at("law_change_per_doubling"), 0.08);
  EXPECT_EQ(none.at("options").at("law_change_per_doubling"), 0.0);
  const auto component = [](const nlohmann::json& j) {
    return j.at("kernels").at(0).at("models").at(0).at("predictive").at("components").at(0);
  };
  EXPECT_EQ(component(assumed).at("law_change_sd_relative"), 0.08);
  EXPECT_EQ(component(none).at("law_change_sd_relative"), 0.0);
  // modeler predict reads it back: the same point, a wider interval beyond the range.
  const Outcome wide = run({"predict", models_.string(), "--at", "512", "--format", "json"});
  const Outcome narrow = run({"predict", trusting.string(), "--at", "512", "--format", "json"});
  const auto at = [](const Outcome& r) {
    return nlohmann::json::parse(r.out)
        .at("kernels")
        .at(0)
        .at("models")
        .at(0)
        .at("predictions")
        .at(0);
  };
  EXPECT_EQ(at(wide).at("value"), at(narrow).at("value"));
  EXPECT_GT(at(wide).at("high").get<double>(), at(narrow).at("high").get<double>());
  EXPECT_LT(at(wide).at("low").get<double>(), at(narrow).at("low").get<double>());
}

TEST_F(CliPredict, TextPredictionsFollowTheLaw) {
  const Outcome r = run({"predict", models_.string(), "--at", "256,512"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto rows = section(r.out, "Predictions");
  ASSERT_EQ(rows.size(), 3u) << r.out;  // header and two thread counts
  for (const char* t : {"256", "512"}) {
    const auto value = predicted_at(rows, t);
    ASSERT_TRUE(value.has_value()) << "no prediction at " << t << " in\n" << r.out;
    const double expected = square_law(std::atof(t));
    EXPECT_NEAR(*value, expected, 0.05 * expected) << "t=" << t;
  }
}

TEST_F(CliPredict, JsonPredictionsParseAndFollowTheLaw) {
  const Outcome r = run({"predict", models_.string(), "--at", "256,512", "--format", "json"});
  ASSERT_EQ(r.status, 0) << r.err;
  nlohmann::json j;
  ASSERT_NO_THROW(j = nlohmann::json::parse(r.out)) << r.out;
  const auto& predictions = j.at("kernels").at(0).at("models").at(0).at("predictions");
  ASSERT_EQ(predictions.size(), 2u);
  const double ts[] = {256, 512};
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& p = predictions.at(i);
    EXPECT_EQ(p.at("param").get<double>(), ts[i]);
    const double expected = square_law(ts[i]);
    const double value = p.at("value").get<double>();
    EXPECT_NEAR(value, expected, 0.05 * expected);
    EXPECT_LE(p.at("low").get<double>(), value);
    EXPECT_GE(p.at("high").get<double>(), value);
    EXPECT_NEAR(p.at("level").get<double>(), 0.9, 1e-12);
  }
}

TEST_F(CliPredict, PredictWithoutAtOrBudgetIsAUsageError) {
  const Outcome r = run({"predict", models_.string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, HasSubstr("--at"));
  EXPECT_EQ(line_count(r.err), 1) << r.err;
}

TEST_F(CliPredict, PredictBudgetInDataUnitsAndRelative) {
  // 2 + 0.5 t^2 exceeds 50 (20x the cost at t = 1, 2.5) first at t = 10 (52; 42.5 at t = 9).
  // The same in the data's unit: 50.
  for (const char* budget : {"20x", "50"}) {
    const Outcome r = run({"predict", models_.string(), "--budget", budget});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto rows = section(r.out, "Budget crossings");
    ASSERT_EQ(rows.size(), 2u) << r.out;
    const auto tokens = tokens_of(rows[1]);
    // kernel (2 tokens), class, budget, [relative to: "2.5 at 1"], exceeded at, earliest, latest
    const bool relative = std::string(budget) == "20x";
    ASSERT_EQ(tokens.size(), relative ? 10u : 7u) << rows[1];
    EXPECT_EQ(tokens[relative ? 7 : 4], "10") << budget << ": " << rows[1];
  }
  // A time budget, as fit takes it: the data name no unit, so it is in the data's unit.
  const Outcome timed = run({"predict", models_.string(), "--budget", "50us"});
  ASSERT_EQ(timed.status, 0) << timed.err;
  EXPECT_EQ(tokens_of(section(timed.out, "Budget crossings").at(1)).at(4), "10") << timed.out;
}

// 4. compare

class CliCompare : public CliPredict {
 protected:
  void SetUp() override {
    CliPredict::SetUp();
    log_models_ = path("log.json");
    const Outcome r = run({"fit", log_.string(), "--format", "json", "-o", log_models_.string()});
    ASSERT_EQ(r.status, 0) << r.err;
  }
  fs::path log_models_;
};

TEST_F(CliCompare, FileAgainstItselfHasNoDifference) {
  const Outcome r = run({"compare", models_.string(), models_.string(), "--fail-on-difference"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("1 model compared, 0 with a different growth class"));
  EXPECT_THAT(r.out, Not(HasSubstr("differs")));
}

TEST_F(CliCompare, SquareAgainstLogDiffers) {
  const Outcome r = run({"compare", models_.string(), log_models_.string(), "--fail-on-difference",
                         "--names", "sq,lg"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_THAT(r.out, StartsWith("A = sq, B = lg"));
  const std::string line = row(r.out, kSquareLabel, "all");
  ASSERT_FALSE(line.empty()) << r.out;
  EXPECT_THAT(line,
              AllOf(HasSubstr("superlinear"), HasSubstr("logarithmic"), HasSubstr("differs")));
  EXPECT_THAT(r.out, HasSubstr("1 with a different growth class"));

  // Without the flag the same difference is reported, with exit 0.
  const Outcome quiet = run({"compare", models_.string(), log_models_.string()});
  EXPECT_EQ(quiet.status, 0) << quiet.err;
  EXPECT_THAT(quiet.out, HasSubstr("differs"));
}

TEST_F(CliCompare, JsonComparisonCountsTheDifference) {
  const Outcome r = run({"compare", models_.string(), log_models_.string(), "--format", "json",
                         "--fail-on-difference"});
  EXPECT_EQ(r.status, 1) << r.err;
  nlohmann::json j;
  ASSERT_NO_THROW(j = nlohmann::json::parse(r.out)) << r.out;
  EXPECT_EQ(j.at("summary").at("compared"), 1);
  EXPECT_EQ(j.at("summary").at("growth_differs"), 1);
  EXPECT_EQ(j.at("models").at(0).at("growth_differs"), true);
}

// 5. plot

TEST_F(CliFit, PlotWritesSvg) {
  const fs::path svg = path("x.svg");
  const Outcome r = run({"plot", square_.string(), "-o", svg.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  const std::string content = slurp(svg);
  EXPECT_TRUE(content.rfind("<?xml", 0) == 0 || content.rfind("<svg", 0) == 0)
      << content.substr(0, 80);
  EXPECT_THAT(content, HasSubstr("<svg"));
  EXPECT_THAT(content, HasSubstr("</svg>"));
  EXPECT_THAT(content, HasSubstr("square"));  // the kernel's panel
}

// 6. preset extrap, csv and extrap outputs

TEST_F(CliFit, PresetExtrapModelsTheFixture) {
  const Outcome r = run({"fit", data_file("extrap_text.txt"), "--preset", "extrap"});
  ASSERT_EQ(r.status, 0) << r.err;
  // DATA 10 11 / 20 21 / 40 41 at t = 2, 4, 8: means 10.5, 20.5, 40.5 = 0.5 + 5 t.
  EXPECT_THAT(row(r.out, "callpath=main metric=time", "all"), HasSubstr("0.5 + 5 * t^(1)"));
  // DATA 5 5 / 6 6 / 7 7: 4 + log2(t).
  EXPECT_THAT(row(r.out, "callpath=main->solve step metric=time", "all"),
              HasSubstr("4 + 1 * log2(t)^(1)"));
}

TEST_F(CliFit, CsvHasHeaderAndOneRowPerKernel) {
  const fs::path both = path("both.txt");
  spit(both, extrap_text({{"square", square_law}, {"flat", constant_law}}));
  const Outcome r = run({"fit", both.string(), "--format", "csv"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 3u) << r.out;
  EXPECT_THAT(lines[0], StartsWith("callpath,metric,class,model,constant,"));
  EXPECT_THAT(lines[1], StartsWith("square,time,all,"));
  EXPECT_THAT(lines[1], HasSubstr("t^(2)"));
  EXPECT_THAT(lines[2], StartsWith("flat,time,all,"));
  // Every row has as many fields as the header (no field here is quoted).
  const auto fields = [](const std::string& s) { return std::count(s.begin(), s.end(), ',') + 1; };
  EXPECT_EQ(fields(lines[1]), fields(lines[0]));
  EXPECT_EQ(fields(lines[2]), fields(lines[0]));

  // The fixture: four kernels, four rows.
  const Outcome f = run({"fit", data_file("extrap_text.txt"), "--format", "csv"});
  ASSERT_EQ(f.status, 0) << f.err;
  EXPECT_EQ(lines_of(f.out).size(), 5u) << f.out;
}

TEST_F(CliFit, ExtrapExportStartsWithParameterAndReadsBack) {
  const Outcome r = run({"fit", square_.string(), "--format", "extrap"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("PARAMETER t\n"));
  EXPECT_THAT(r.out, HasSubstr("POINTS"));
  EXPECT_THAT(r.out, HasSubstr("METRIC time"));
  EXPECT_THAT(r.out, HasSubstr("REGION square"));
  const auto lines = lines_of(r.out);
  EXPECT_EQ(std::count_if(lines.begin(), lines.end(),
                          [](const std::string& l) { return l.rfind("DATA ", 0) == 0; }),
            static_cast<long>(kExtrapThreads.size()));

  // The export is an input that gives the same model.
  const fs::path exported = path("exported.txt");
  spit(exported, r.out);
  const Outcome again = run({"fit", exported.string()});
  const Outcome original = run({"fit", square_.string()});
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(body(again.out), body(original.out));

  const Outcome f = run({"fit", data_file("extrap_text.txt"), "--format", "extrap"});
  ASSERT_EQ(f.status, 0) << f.err;
  EXPECT_THAT(f.out, StartsWith("PARAMETER"));
}

// 7. predictions, budgets, classes

TEST_F(CliFit, BudgetAndPredictSections) {
  const Outcome r = run({"fit", square_.string(), "--budget", "4x", "--predict", "128"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto predictions = section(r.out, "Predictions");
  ASSERT_EQ(predictions.size(), 2u) << r.out;
  const auto value = predicted_at(predictions, "128");
  ASSERT_TRUE(value.has_value()) << r.out;
  EXPECT_NEAR(*value, square_law(128), 0.05 * square_law(128));

  const auto budgets = section(r.out, "Budget crossings");
  ASSERT_EQ(budgets.size(), 2u) << r.out;
  const auto tokens = tokens_of(budgets[1]);
  // kernel (2 tokens), class, budget, relative to ("2.5 at 1"), exceeded at, earliest, latest
  ASSERT_EQ(tokens.size(), 10u) << budgets[1];
  EXPECT_EQ(tokens[6], "1") << budgets[1];
  // 4x the cost at t = 1 (about 2.5) is about 10 = the cost at t = 4: crossed at 4 or 5.
  EXPECT_THAT(tokens[7], ::testing::AnyOf("4", "5")) << budgets[1];

  // A budget away from a measured point: 20x (about 50) is crossed at t = 10.
  const Outcome r20 = run({"fit", square_.string(), "--budget", "20x"});
  ASSERT_EQ(r20.status, 0) << r20.err;
  const auto b20 = section(r20.out, "Budget crossings");
  ASSERT_EQ(b20.size(), 2u) << r20.out;
  EXPECT_EQ(tokens_of(b20[1]).at(7), "10") << b20[1];
  // A constant kernel never exceeds its budget.
  const Outcome flat = run({"fit", constant_.string(), "--budget", "4x"});
  ASSERT_EQ(flat.status, 0) << flat.err;
  const auto bf = section(flat.out, "Budget crossings");
  ASSERT_EQ(bf.size(), 2u) << flat.out;
  EXPECT_EQ(tokens_of(bf[1]).at(7), "never") << bf[1];
}

TEST_F(CliFit, ClassesAutoReportsDecisions) {
  const Outcome r = run({"fit", square_.string(), "--classes", "auto"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto decisions = section(r.out, "Class decisions");
  ASSERT_EQ(decisions.size(), 1u) << r.out;
  EXPECT_THAT(decisions[0], HasSubstr(kSquareLabel));
}

TEST_F(CliFit, ClassesListGivesOneModelPerClass) {
  const Outcome r = run({"fit", square_.string(), "--classes", "po2,odd"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(row(r.out, kSquareLabel, "po2"), HasSubstr("t^(2)")) << r.out;  // 1..64, 7 points
  EXPECT_THAT(row(r.out, kSquareLabel, "odd"), HasSubstr("superlinear")) << r.out;  // 24, 40, 56
  EXPECT_TRUE(row(r.out, kSquareLabel, "all").empty()) << r.out;
}

// 8. errors

class CliErrors : public CliFit {
 protected:
  void SetUp() override {
    CliFit::SetUp();
    // Line 8 is the DATA line of t = 8 (1 PARAMETER, 2 POINTS, 3 REGION, 4 METRIC, 5.. DATA).
    auto lines = lines_of(extrap_text({{"square", square_law}}));
    ASSERT_THAT(lines.at(7), StartsWith("DATA "));
    lines.at(7) = "DATA 34.1 3x4.2 33.9 34.0 34.3";
    std::string text;
    for (const auto& l : lines) text += l + "\n";
    bad_ = path("bad.txt");
    spit(bad_, text);
  }
  void expect_one_line_error(const Outcome& r) {
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(line_count(r.err), 1) << r.err;
    EXPECT_THAT(r.err, HasSubstr(bad_.string() + ":8")) << r.err;
  }
  fs::path bad_;
};

TEST_F(CliErrors, MalformedDataIsOneLineNamingFileAndLine) {
  const Outcome r = run({"fit", bad_.string()});
  expect_one_line_error(r);
  EXPECT_THAT(r.err, HasSubstr("3x4.2"));
}

TEST_F(CliErrors, MalformedStdinNamesStdinAndLine) {
  const Outcome r = run({"fit", "-"}, bad_);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("<stdin>:8")) << r.err;
}

TEST_F(CliErrors, MalformedInputCreatesNoOutputFile) {
  const auto before = listing();
  for (const char* format : {"text", "json", "csv"}) {
    const fs::path out = path(std::string("out.") + format);
    const Outcome r = run({"fit", bad_.string(), "--format", format, "-o", out.string()});
    expect_one_line_error(r);
    EXPECT_FALSE(fs::exists(out)) << format;
  }
  const fs::path svg = path("out.svg");
  const Outcome p = run({"plot", bad_.string(), "-o", svg.string()});
  expect_one_line_error(p);
  EXPECT_FALSE(fs::exists(svg));
  EXPECT_EQ(listing(), before);  // no temporary file left behind either
}

TEST_F(CliErrors, MalformedInputLeavesExistingOutputUnchanged) {
  const fs::path out = path("out.txt");
  const std::string previous = "previous content\nline two\n";
  spit(out, previous);
  const auto before = listing();
  const Outcome r = run({"fit", bad_.string(), "-o", out.string()});
  expect_one_line_error(r);
  EXPECT_EQ(slurp(out), previous);
  EXPECT_EQ(listing(), before);

  // A successful run replaces it whole.
  const Outcome ok = run({"fit", square_.string(), "-o", out.string()});
  ASSERT_EQ(ok.status, 0) << ok.err;
  EXPECT_EQ(ok.out, "");
  EXPECT_THAT(slurp(out), AllOf(StartsWith("Models over t"), HasSubstr("t^(2)")));
}

TEST_F(CliErrors, UnknownOptionIsAUsageError) {
  const Outcome r = run({"fit", square_.string(), "--no-such-option"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("--no-such-option"));
}

// Each bad option value: exit 2, nothing on stdout, one line on stderr that names the option.
void expect_refused(const Outcome& r, const std::string& option) {
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr(option)) << r.err;
}

// The same, and the line quotes the value (one that is not a number at all).
void expect_option_error(const Outcome& r, const std::string& option, const std::string& value) {
  expect_refused(r, option);
  EXPECT_THAT(r.err, HasSubstr(value)) << r.err;
}

TEST_F(CliErrors, BadBudgetNamesTheOption) {
  expect_option_error(run({"fit", square_.string(), "--budget", "4y"}), "--budget", "4y");
  expect_option_error(run({"fit", square_.string(), "--budget", "-3"}), "--budget", "-3");
}

TEST_F(CliErrors, BadAggregateNamesTheOption) {
  expect_option_error(run({"fit", square_.string(), "--aggregate", "average"}), "--aggregate",
                      "average");
}

TEST_F(CliErrors, BadClassesNamesTheOption) {
  expect_option_error(run({"fit", square_.string(), "--classes", "po3"}), "--classes", "po3");
}

TEST_F(CliErrors, BadConfidenceNamesTheOption) {
  expect_refused(run({"fit", square_.string(), "--confidence", "1.5"}), "--confidence");
  expect_option_error(run({"fit", square_.string(), "--confidence", "abc"}), "--confidence", "abc");
}

TEST_F(CliErrors, BadLawChangeNamesTheOption) {
  for (const char* value : {"-0.1", "-1", "inf"}) {
    SCOPED_TRACE(value);
    expect_refused(run({"fit", square_.string(), "--law-change", value}), "--law-change");
  }
  expect_option_error(run({"fit", square_.string(), "--law-change", "abc"}), "--law-change", "abc");
}

TEST_F(CliErrors, BadFoldsNamesTheOption) {
  for (const char* value : {"1", "-1", "-2"}) {
    SCOPED_TRACE(value);
    expect_refused(run({"fit", square_.string(), "--folds", value}), "--folds");
  }
  expect_option_error(run({"fit", square_.string(), "--folds", "two"}), "--folds", "two");
}

TEST_F(CliErrors, NonexistentFileIsNamed) {
  const fs::path missing = path("no-such-file.txt");
  for (const char* command : {"fit", "plot"}) {
    const Outcome r = run({command, missing.string()});
    EXPECT_EQ(r.status, 2) << command;
    EXPECT_EQ(r.out, "") << command;
    EXPECT_EQ(line_count(r.err), 1) << r.err;
    EXPECT_THAT(r.err, HasSubstr(missing.string())) << command;
  }
  const fs::path json = path("no-such.json");
  const Outcome p = run({"predict", json.string(), "--at", "8"});
  EXPECT_EQ(p.status, 2);
  EXPECT_THAT(p.err, HasSubstr(json.string()));
  const Outcome c = run({"compare", json.string(), json.string()});
  EXPECT_EQ(c.status, 2);
  EXPECT_THAT(c.err, HasSubstr(json.string()));
}

TEST_F(CliErrors, MissingSubcommandOrInputIsAUsageError) {
  const Outcome none = run({});
  EXPECT_EQ(none.status, 2);
  EXPECT_EQ(none.out, "");
  const Outcome no_input = run({"fit"});
  EXPECT_EQ(no_input.status, 2);
  EXPECT_EQ(no_input.out, "");
  EXPECT_EQ(line_count(no_input.err), 1) << no_input.err;
}

// 9. ompbench CSV

using CliOmpbench = CliTest;

// A sweep to 32 threads on a machine of 16 cores with two hardware threads each: a prediction at
// 64 threads crosses the hardware threads (32), which no measurement crosses; one at 24 crosses
// nothing new (the measurements already reach past the cores).
TEST_F(CliOmpbench, SidecarPlatformFlagsPredictionsPastAnUncrossedBoundary) {
  const fs::path csv = path("results.csv");
  spit(csv, ompbench_csv());
  spit(path("results.csv.meta.json"),
       R"({"format": "ompbench-sidecar-1", "runs": [{"run_id": "r1", "platform": {"name": "local",
       "description": "test machine", "boards": 1, "sockets_per_board": 1, "cores_per_socket": 16,
       "threads_per_core": 2, "numa_nodes": 1, "classes": ["po2"]}}]})");
  const Outcome r = run({"fit", csv.string(), "--predict", "24,64", "--wide"});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<std::string> predictions = section(r.out, "Predictions");
  for (const std::string& line : predictions) {
    const auto tokens = tokens_of(line);
    if (std::find(tokens.begin(), tokens.end(), "64") != tokens.end()) {
      EXPECT_THAT(line, HasSubstr(" ^ ")) << line;
    }
    if (std::find(tokens.begin(), tokens.end(), "24") != tokens.end()) {
      EXPECT_THAT(line, Not(HasSubstr(" ^ "))) << line;
    }
  }
  EXPECT_THAT(r.out, HasSubstr("predicted past more threads than hardware threads (32)"));

  const Outcome j = run({"fit", csv.string(), "--predict", "24,64", "--format", "json"});
  ASSERT_EQ(j.status, 0) << j.err;
  const auto doc = nlohmann::json::parse(j.out);
  const auto& predictions_json = doc.at("kernels").at(0).at("models").at(0).at("predictions");
  ASSERT_EQ(predictions_json.size(), 2u);
  EXPECT_FALSE(predictions_json.at(0).contains("boundaries"));
  EXPECT_EQ(predictions_json.at(1).at("boundaries").size(), 1u);
  EXPECT_EQ(doc.at("options").at("boundaries").size(), 2u);  // the cores' and the machine's end

  // A platform named on the command line wins over the sidecar's: no SMT, 64 hardware threads.
  const Outcome named = run(
      {"fit", csv.string(), "--predict", "64", "--platform", "xeon-phi-7120", "--format", "json"});
  ASSERT_EQ(named.status, 0) << named.err;
  EXPECT_NE(nlohmann::json::parse(named.out).at("options").at("boundaries"),
            doc.at("options").at("boundaries"));
}

TEST_F(CliOmpbench, BrokenSidecarIsAnErrorNamingIt) {
  const fs::path csv = path("results.csv");
  spit(csv, ompbench_csv());
  spit(path("results.csv.meta.json"), "{\"runs\": [ {\"platform\": {\"boards\": \"one\"}} ]}\n");
  const Outcome r = run({"fit", csv.string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("results.csv.meta.json"));
  EXPECT_EQ(r.out, "");
}

TEST_F(CliOmpbench, SkipsInvalidRowsAndKeysByConstruct) {
  const fs::path csv = path("results.csv");
  spit(csv, ompbench_csv());
  const Outcome r = run({"fit", csv.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.err, AllOf(HasSubstr("valid=0"), HasSubstr("1 value")));
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  const std::string barrier = row(r.out, "construct=barrier", "all");
  const std::string single = row(r.out, "construct=single", "all");
  EXPECT_THAT(barrier, AllOf(HasSubstr("method=epcc"), HasSubstr("bind=close"),
                             HasSubstr("threads^(1)"), HasSubstr("linear")))
      << r.out;
  EXPECT_THAT(single, HasSubstr("constant")) << r.out;

  const Outcome j = run({"fit", csv.string(), "--format", "json"});
  ASSERT_EQ(j.status, 0) << j.err;
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc.at("parameter"), "threads");
  const auto& columns = doc.at("key_columns");
  EXPECT_NE(std::find(columns.begin(), columns.end(), "construct"), columns.end());
  EXPECT_EQ(std::find(columns.begin(), columns.end(), "valid"), columns.end());
  EXPECT_EQ(std::find(columns.begin(), columns.end(), "rep"), columns.end());
  ASSERT_EQ(doc.at("kernels").size(), 2u);
  EXPECT_EQ(doc.at("kernels").at(0).at("key").at("construct"), "barrier");
  EXPECT_EQ(doc.at("kernels").at(1).at("key").at("construct"), "single");
  EXPECT_EQ(doc.at("options").at("aggregation"), "trimmed");  // ompbench default
  for (const auto& p : doc.at("kernels").at(0).at("models").at(0).at("points")) {
    EXPECT_EQ(p.at("repetitions").get<int>(), p.at("param").get<double>() == 4.0 ? 4 : 5)
        << "threads=" << p.at("param");
  }

  // --include-invalid uses the row, whose nan is then refused at its line (1 header + 12 rows).
  const Outcome inc = run({"fit", csv.string(), "--include-invalid"});
  EXPECT_EQ(inc.status, 2);
  EXPECT_THAT(inc.err, HasSubstr(csv.string() + ":14"));
}

TEST_F(CliOmpbench, FixtureKeysIncludeConstructAndExtraColumns) {
  const Outcome r = run({"fit", data_file("ompbench.csv")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("valid=0"));
  EXPECT_THAT(row(r.out, "construct=barrier", "all"), HasSubstr("governor=performance")) << r.out;
  EXPECT_THAT(row(r.out, "construct=for", "all"), HasSubstr("param_value=static,4")) << r.out;
}

// 10. --version, --help

using CliInfo = CliTest;

TEST_F(CliInfo, VersionAndHelp) {
  const Outcome v = run({"--version"});
  EXPECT_EQ(v.status, 0) << v.err;
  EXPECT_TRUE(std::regex_search(v.out, std::regex(R"(^\d+\.\d+\.\d+)"))) << v.out;

  const Outcome h = run({"fit", "--help"});
  EXPECT_EQ(h.status, 0) << h.err;
  EXPECT_THAT(h.out, AllOf(HasSubstr("Usage"), HasSubstr("--fail-on-worse-than-log"),
                           HasSubstr("--budget"), HasSubstr("--classes")));
  for (const char* command : {"plot", "predict", "compare"}) {
    const Outcome c = run({command, "--help"});
    EXPECT_EQ(c.status, 0) << command;
    EXPECT_THAT(c.out, HasSubstr("Usage")) << command;
  }
}

}  // namespace

// `modeler fit` and `modeler plot` with several parameters, end to end: Extra-P multi-parameter
// text, generic CSV with --param threads,size, ompbench results with --param threads,param_value
// (and the note when a parameter has too few values to model).

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/temporary_directory.h"
#include "tests/support/process.h"

namespace {

namespace fs = std::filesystem;
using ompscale::test_support::Outcome;
using ::testing::HasSubstr;
using ::testing::Not;

class CliMulti : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string pattern = ompscale::make_temporary_directory("ompscale-multi");
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path write(const std::string& name, const std::string& content) {
    ompscale::test_support::spit(dir_ / name, content);
    return dir_ / name;
  }
  Outcome run(const std::vector<std::string>& args) {
    std::vector<std::string> argv{OMPSCALE_MODELER_BIN};
    argv.insert(argv.end(), args.begin(), args.end());
    return ompscale::test_support::run_program(argv, dir_);
  }
  fs::path dir_;
};

// 2 + 0.884 * log2(p) * s on a 5 x 5 grid (Extra-P's two_parameter_5 test input, exact).
std::string extrap_two_parameters() {
  std::string text = "PARAMETER p s\nPOINTS";
  for (int s : {10, 20, 30, 40, 50}) {
    for (int p : {2, 4, 8, 16, 32})
      text += " ( " + std::to_string(p) + " " + std::to_string(s) + " )";
  }
  text += "\nREGION main\n";
  for (int s : {10, 20, 30, 40, 50}) {
    for (int p : {2, 4, 8, 16, 32}) {
      text += "DATA " + std::to_string(2.0 + 0.884 * std::log2(p) * s) + "\n";
    }
  }
  return text;
}

TEST_F(CliMulti, ExtrapTextWithTwoParameters) {
  const fs::path in = write("two.txt", extrap_two_parameters());
  for (const std::string preset : {"default", "extrap"}) {
    SCOPED_TRACE(preset);
    const Outcome r = run({"fit", in.string(), "--preset", preset, "--predict", "64"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("Models over p and s"));
    EXPECT_THAT(r.out, HasSubstr("2 + 0.884 * log2(p)^(1) * s^(1)"));
    // Predictions along p at every measured s: 2 + 0.884 * 6 * 30 at (64, 30).
    EXPECT_THAT(r.out, HasSubstr("Predictions (along p"));
    EXPECT_THAT(r.out, HasSubstr("161.1"));
  }
  const Outcome json = run({"fit", in.string(), "--format", "json", "--budget", "100"});
  ASSERT_EQ(json.status, 0) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc.at("parameters"), nlohmann::json::array({"p", "s"}));
  const auto& kernel = doc.at("kernels").at(0);
  const auto& term = kernel.at("terms").at(0);
  ASSERT_EQ(term.at("factors").size(), 2u);
  EXPECT_EQ(term.at("factors").at(0).at("parameter"), "p");
  EXPECT_EQ(term.at("factors").at(0).at("log_exponent"), 1);
  EXPECT_EQ(term.at("factors").at(1).at("parameter"), "s");
  EXPECT_NEAR(term.at("coefficient").get<double>(), 0.884, 1e-9);
  // One budget crossing along p per value of s: at s = 50, 2 + 44.2 log2(p) > 100 from p = 5.
  ASSERT_EQ(kernel.at("budgets").size(), 5u);
  EXPECT_EQ(kernel.at("budgets").at(4).at("threads"), 5.0);
  // modeler predict reads the file back and predicts along p.
  ompscale::test_support::spit(dir_ / "models.json", json.out);
  const Outcome predicted = run({"predict", (dir_ / "models.json").string(), "--at", "64"});
  ASSERT_EQ(predicted.status, 0) << predicted.err;
  EXPECT_THAT(predicted.out, HasSubstr("Predictions (along p"));
  EXPECT_THAT(predicted.out, HasSubstr("161.1"));
  const Outcome csv =
      run({"predict", (dir_ / "models.json").string(), "--at", "64", "--format", "csv"});
  EXPECT_EQ(csv.status, 2);
}

TEST_F(CliMulti, GenericCsvWithSeveralParameters) {
  std::string csv = "kernel,threads,size,time\n";
  for (int t : {1, 2, 4, 8}) {
    for (int n : {100, 200, 400, 800}) {
      for (int r = 0; r < 3; ++r) {
        csv += "copy," + std::to_string(t) + "," + std::to_string(n) + "," +
               std::to_string((0.5 + 0.01 * n / t) * (1.0 + 0.001 * r)) + "\n";
      }
    }
  }
  const fs::path in = write("grid.csv", csv);
  const Outcome r =
      run({"fit", in.string(), "--param", "threads,size", "--value", "time", "--key", "kernel"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Models over threads and size"));
  EXPECT_THAT(r.out, HasSubstr("threads^(-1) * size^(1)"));
  const Outcome plot = run({"plot", in.string(), "--param", "threads,size", "--value", "time",
                            "--key", "kernel", "-o", (dir_ / "grid.svg").string()});
  ASSERT_EQ(plot.status, 0) << plot.err;
  const std::string svg = ompscale::test_support::slurp(dir_ / "grid.svg");
  // One panel for the kernel, one line (and legend entry) per size.
  std::size_t panels = 0;
  for (auto at = svg.find("class=\"panel\""); at != std::string::npos;
       at = svg.find("class=\"panel\"", at + 1)) {
    ++panels;
  }
  EXPECT_EQ(panels, 1u);
  for (const std::string size : {"size=100", "size=200", "size=400", "size=800"})
    EXPECT_THAT(svg, HasSubstr("model, " + size));
}

// Predictions over several parameters carry intervals: around the point, wider beyond the
// measured thread counts, kept through models.json; Extra-P's method gives none.
TEST_F(CliMulti, PredictionsWithSeveralParametersHaveIntervals) {
  std::string csv = "kernel,threads,size,time\n";
  unsigned state = 12345;
  for (int t : {1, 2, 3, 4, 5, 6, 7, 8}) {
    for (int n : {100, 200, 400, 800}) {
      for (int r = 0; r < 5; ++r) {
        state = state * 1103515245u + 12345u;
        const double noise = 0.04 * ((state >> 8) % 1000 / 1000.0 - 0.5);
        csv += "copy," + std::to_string(t) + "," + std::to_string(n) + "," +
               std::to_string((0.5 + 0.01 * n / t) * (1.0 + noise)) + "\n";
      }
    }
  }
  const fs::path in = write("noisy.csv", csv);
  const std::vector<std::string> fit = {"fit",  in.string(), "--param", "threads,size", "--value",
                                        "time", "--key",     "kernel",  "--predict",    "6,32"};
  std::vector<std::string> json_args = fit;
  json_args.insert(json_args.end(), {"--format", "json"});
  const Outcome r = run(json_args);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto predictions = nlohmann::json::parse(r.out).at("kernels").at(0).at("predictions");
  ASSERT_EQ(predictions.size(), 8u);  // 2 thread counts x 4 sizes
  for (const auto& p : predictions) {
    EXPECT_LT(p.at("low").get<double>(), p.at("value").get<double>()) << p;
    EXPECT_GT(p.at("high").get<double>(), p.at("value").get<double>()) << p;
    EXPECT_EQ(p.at("level"), 0.9);
  }
  // Beyond the measured range (32 threads), relative to the value, wider than inside it (6).
  auto relative_width = [](const nlohmann::json& p) {
    return (p.at("high").get<double>() - p.at("low").get<double>()) / p.at("value").get<double>();
  };
  EXPECT_GT(relative_width(predictions.at(1)), relative_width(predictions.at(0)));

  ompscale::test_support::spit(dir_ / "models.json", r.out);
  const Outcome again =
      run({"predict", (dir_ / "models.json").string(), "--at", "6,32", "--format", "json"});
  ASSERT_EQ(again.status, 0) << again.err;
  const auto repredicted = nlohmann::json::parse(again.out).at("kernels").at(0).at("predictions");
  ASSERT_EQ(repredicted.size(), predictions.size());
  for (std::size_t i = 0; i < predictions.size(); ++i) {
    EXPECT_NEAR(repredicted.at(i).at("low").get<double>(),
                predictions.at(i).at("low").get<double>(),
                1e-6 * predictions.at(i).at("value").get<double>());
  }
  const Outcome text = run(fit);
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("interval"));
  // The input would teach the fits first, from its lines along the threads (one per size): four
  // are too few, and the report says so.
  EXPECT_THAT(text.out, HasSubstr("4 lines with 4 or more values of the first parameter"));
  const auto learned = nlohmann::json::parse(r.out).at("options").at("learned");
  EXPECT_EQ(learned.at("along_lines"), true);
  EXPECT_EQ(learned.at("kernels"), 4);

  json_args.insert(json_args.end(), {"--preset", "extrap"});
  const Outcome extrap = run(json_args);
  ASSERT_EQ(extrap.status, 0) << extrap.err;
  const nlohmann::json extrap_models = nlohmann::json::parse(extrap.out);
  for (const auto& p : extrap_models.at("kernels").at(0).at("predictions"))
    EXPECT_EQ(p.at("low"), p.at("high"));
}

TEST_F(CliMulti, CsvAndExtrapFormatsWithSeveralParameters) {
  std::string csv = "kernel,threads,size,time\n";
  for (int t : {1, 2, 4, 8}) {
    for (int n : {100, 200, 400, 800}) {
      for (int r = 0; r < 3; ++r) {
        csv += "copy," + std::to_string(t) + "," + std::to_string(n) + "," +
               std::to_string((0.5 + 0.01 * n / t) * (1.0 + 0.001 * r)) + "\n";
      }
    }
  }
  const fs::path in = write("grid.csv", csv);
  const std::vector<std::string> args = {"fit",     in.string(), "--param", "threads,size",
                                         "--value", "time",      "--key",   "kernel"};
  auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> all = args;
    all.insert(all.end(), more.begin(), more.end());
    return run(all);
  };
  const Outcome table = with({"--format", "csv", "--predict", "16"});
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("kernel,class,model,constant,term1_coefficient,"
                                   "term1_threads_exponent,term1_threads_log_exponent,"
                                   "term1_size_exponent,term1_size_log_exponent,"));
  EXPECT_THAT(table.out, HasSubstr("predicted_threads_16_size_800"));
  EXPECT_THAT(table.out, HasSubstr("\ncopy,all,"));
  // The measurements as Extra-P text, which fits to the same model.
  const Outcome extrap = with({"--format", "extrap"});
  ASSERT_EQ(extrap.status, 0) << extrap.err;
  EXPECT_THAT(extrap.out, HasSubstr("PARAMETER threads size\nPOINTS ( 1 100 ) ( 1 200 )"));
  const fs::path exported = write("grid.txt", extrap.out);
  const Outcome refit = run({"fit", exported.string()});
  ASSERT_EQ(refit.status, 0) << refit.err;
  EXPECT_THAT(refit.out, HasSubstr("threads^(-1) * size^(1)"));
}

// time over threads at two sizes; with `split`, the powers of two follow another law.
std::string classes_csv(bool split) {
  std::string csv = "kernel,threads,size,time\n";
  for (int t = 1; t <= 16; ++t) {
    const bool po2 = (t & (t - 1)) == 0;
    for (int n : {100, 400, 1600}) {
      for (int r = 0; r < 3; ++r) {
        const double law = split && po2 ? 1.0 + 0.5 * t : 1.0 + 2.0 * t;
        csv += "k," + std::to_string(t) + "," + std::to_string(n) + "," +
               std::to_string(law * n / 100.0 * (1.0 + 0.002 * (r - 1))) + "\n";
      }
    }
  }
  return csv;
}

TEST_F(CliMulti, ThreadCountClassesWithSeveralParameters) {
  const fs::path split = write("split.csv", classes_csv(true));
  const Outcome listed = run({"fit", split.string(), "--param", "threads,size", "--value", "time",
                              "--key", "kernel", "--classes", "po2", "--format", "json"});
  ASSERT_EQ(listed.status, 0) << listed.err;
  const auto doc = nlohmann::json::parse(listed.out);
  ASSERT_EQ(doc.at("kernels").size(), 2u);
  EXPECT_EQ(doc.at("kernels").at(0).at("class"), "po2");
  EXPECT_EQ(doc.at("kernels").at(0).at("points").size(), 15u);  // 5 powers of two x 3 sizes
  EXPECT_EQ(doc.at("kernels").at(1).at("class"), "other");

  const Outcome automatic = run({"fit", split.string(), "--param", "threads,size", "--value",
                                 "time", "--key", "kernel", "--classes", "auto"});
  ASSERT_EQ(automatic.status, 0) << automatic.err;
  EXPECT_THAT(automatic.out, HasSubstr("split into po2 | other: each of the 3 line(s)"));
  const fs::path one_law = write("one.csv", classes_csv(false));
  const Outcome kept = run({"fit", one_law.string(), "--param", "threads,size", "--value", "time",
                            "--key", "kernel", "--classes", "auto"});
  ASSERT_EQ(kept.status, 0) << kept.err;
  EXPECT_THAT(kept.out, HasSubstr("one model: each of the 3 line(s) along threads"));
  EXPECT_THAT(kept.out, Not(HasSubstr("other")));
}

TEST_F(CliMulti, CompareWithSeveralParametersGoesLineByLine) {
  std::string csv = "kernel,runtime,threads,size,time\n";
  for (int t : {1, 2, 4, 8, 16}) {
    for (int n : {100, 800}) {
      for (int r = 0; r < 3; ++r) {
        const double noise = 1.0 + 0.001 * r;
        csv += "copy,a," + std::to_string(t) + "," + std::to_string(n) + "," +
               std::to_string((0.5 + 0.01 * n * std::log2(2.0 * t)) * noise) + "\n";
        csv += "copy,b," + std::to_string(t) + "," + std::to_string(n) + "," +
               std::to_string((0.5 + 0.01 * n * t) * noise) + "\n";
      }
    }
  }
  const fs::path in = write("two.csv", csv);
  for (const std::string runtime : {"a", "b"}) {
    const Outcome r = run({"fit", in.string(), "--param", "threads,size", "--value", "time",
                           "--key", "kernel,runtime", "--where", "runtime=" + runtime, "--format",
                           "json", "-o", (dir_ / (runtime + ".json")).string()});
    ASSERT_EQ(r.status, 0) << r.err;
  }
  const Outcome cmp = run({"compare", (dir_ / "a.json").string(), (dir_ / "b.json").string(),
                           "--names", "a,b", "--wide"});
  ASSERT_EQ(cmp.status, 0) << cmp.err;
  EXPECT_THAT(cmp.out, HasSubstr("compared across runtime"));
  EXPECT_THAT(cmp.out, HasSubstr("size=100"));
  EXPECT_THAT(cmp.out, HasSubstr("size=800"));
  EXPECT_THAT(cmp.out, HasSubstr("2 models compared, 2 with a different growth class"));
}

TEST_F(CliMulti, OmpbenchArraySizeWithTwoThreadCountsIsModeledAlone) {
  std::string csv = "construct,method,metric,threads,param,param_value,rep,value,unit,valid\n";
  for (int t : {1, 2}) {
    for (int n : {1, 27, 729, 19683}) {
      for (int r = 0; r < 5; ++r) {
        csv += "firstprivate_array,direct,avg_cost," + std::to_string(t) + ",array_size," +
               std::to_string(n) + "," + std::to_string(r) + "," +
               std::to_string(0.2 * t + 4e-5 * n * (1.0 + 0.01 * r)) + ",us,1\n";
      }
    }
  }
  const fs::path in = write("sweep.csv", csv);
  const Outcome r = run({"fit", in.string(), "--param", "threads,param_value"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("threads was measured at 2 value(s) (1, 2), too few to show a law"));
  EXPECT_THAT(r.out, HasSubstr("Models over param_value"));
  EXPECT_THAT(r.out, HasSubstr("threads=1"));
  EXPECT_THAT(r.out, HasSubstr("threads=2"));
  EXPECT_THAT(r.out, HasSubstr("param_value^(1)"));
  // Without --param the same file is modeled over threads, one kernel per array size.
  const Outcome threads = run({"fit", in.string()});
  ASSERT_EQ(threads.status, 0) << threads.err;
  EXPECT_THAT(threads.out, HasSubstr("Models over threads"));
  EXPECT_THAT(threads.out, HasSubstr("param_value=19683"));
}

// --lines each: every measured size's line along the threads gets its own model; models.json
// keeps them, and `predict` from it predicts along each line as `fit` did. --lines law keeps one
// law; Extra-P's preset has no lines.
TEST_F(CliMulti, EachLineModeledOnItsOwnThroughModelsJson) {
  std::string csv = "kernel,threads,size,time\n";
  for (int t : {1, 2, 3, 4, 5, 6, 7, 8}) {
    for (int n : {100, 400, 1600}) {
      const double per_size = n == 100   ? 1.0 + 0.5 * t
                              : n == 400 ? 2.0 + 3.0 * std::log2(t)
                                         : 5.0 + 0.1 * t * t;
      for (int r = 0; r < 3; ++r)
        csv += fmt::format("copy,{},{},{}\n", t, n, per_size * (1.0 + 0.01 * (r - 1)));
    }
  }
  const fs::path in = write("lines.csv", csv);
  const std::vector<std::string> fit = {
      "fit",    in.string(), "--param", "threads,size", "--value", "time",     "--key",
      "kernel", "--predict", "16",      "--lines",      "each",    "--format", "json"};
  const Outcome r = run(fit);
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json models = nlohmann::json::parse(r.out);
  EXPECT_EQ(models.at("options").at("lines"), "each");
  const auto& kernel = models.at("kernels").at(0);
  ASSERT_EQ(kernel.at("lines").size(), 3u);
  EXPECT_EQ(kernel.at("lines").at(2).at("others"), nlohmann::json::array({1600}));
  const auto predictions = kernel.at("predictions");
  ASSERT_EQ(predictions.size(), 3u);  // at 16 threads, one per size
  EXPECT_NEAR(predictions.at(2).at("value").get<double>(), 5.0 + 0.1 * 256, 1.5);
  EXPECT_NEAR(predictions.at(1).at("value").get<double>(), 2.0 + 3.0 * 4, 1.0);

  ompscale::test_support::spit(dir_ / "models.json", r.out);
  const Outcome again =
      run({"predict", (dir_ / "models.json").string(), "--at", "16", "--format", "json"});
  ASSERT_EQ(again.status, 0) << again.err;
  const auto repredicted = nlohmann::json::parse(again.out).at("kernels").at(0).at("predictions");
  ASSERT_EQ(repredicted.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    for (const char* field : {"value", "low", "high"})
      EXPECT_NEAR(repredicted.at(i).at(field).get<double>(),
                  predictions.at(i).at(field).get<double>(),
                  1e-9 * predictions.at(i).at("value").get<double>())
          << field;
  }
  std::vector<std::string> text = fit;
  text.resize(text.size() - 2);
  const Outcome report = run(text);
  ASSERT_EQ(report.status, 0) << report.err;
  EXPECT_THAT(report.out, HasSubstr("Lines modeled on their own"));

  std::vector<std::string> law = fit;
  law.at(11) = "law";
  const Outcome one = run(law);
  ASSERT_EQ(one.status, 0) << one.err;
  EXPECT_TRUE(nlohmann::json::parse(one.out).at("kernels").at(0).at("lines").empty());

  // compare goes by the models the predictions come from: each line's own against the law.
  ompscale::test_support::spit(dir_ / "law.json", one.out);
  const Outcome cmp = run({"compare", (dir_ / "models.json").string(), (dir_ / "law.json").string(),
                           "--names", "each,law", "--wide"});
  ASSERT_EQ(cmp.status, 0) << cmp.err;
  EXPECT_THAT(cmp.out, HasSubstr("5 + 0.1 * threads^(2)"));
  EXPECT_THAT(cmp.out, HasSubstr("2 + 3 * log2(threads)^(1)"));

  // Budgets along a line come from its model: 5 + 0.1 t^2 passes 20 at 13 threads.
  std::vector<std::string> budget = fit;
  budget.insert(budget.end(), {"--budget", "20"});
  const Outcome crossing = run(budget);
  ASSERT_EQ(crossing.status, 0) << crossing.err;
  const auto budgets = nlohmann::json::parse(crossing.out).at("kernels").at(0).at("budgets");
  ASSERT_EQ(budgets.size(), 3u);
  EXPECT_EQ(budgets.at(2).at("others"), nlohmann::json::array({1600}));
  EXPECT_EQ(budgets.at(2).at("threads"), 13);

  // A models.json whose line has no predictive component is refused, naming the place.
  nlohmann::json broken = models;
  broken["kernels"][0]["lines"][1]["predictive"]["components"] = nlohmann::json::array();
  ompscale::test_support::spit(dir_ / "broken.json", broken.dump(1));
  const Outcome bad = run({"predict", (dir_ / "broken.json").string(), "--at", "16"});
  EXPECT_NE(bad.status, 0);
  EXPECT_THAT(bad.err, HasSubstr("broken.json:"));
  EXPECT_THAT(bad.err, HasSubstr("lines[1].predictive"));
  EXPECT_THAT(bad.err, HasSubstr("expected at least one component"));

  // One parameter has no lines to model on their own.
  const Outcome single = run({"fit", in.string(), "--param", "threads", "--value", "time", "--key",
                              "kernel,size", "--lines", "each"});
  EXPECT_EQ(single.status, 2);
  EXPECT_THAT(single.err, HasSubstr("--lines each: the input has 1 parameter"));

  std::vector<std::string> extrap = fit;
  extrap.insert(extrap.end(), {"--preset", "extrap"});
  const Outcome refused = run(extrap);
  EXPECT_EQ(refused.status, 2);
  EXPECT_THAT(refused.err, HasSubstr("--lines each"));
}

}  // namespace

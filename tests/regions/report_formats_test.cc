// The formats and the command: JSON that parses and holds the analysis, CSV with one row per
// point and fixed columns, Extra-P text that the modeler reads back, SVG charts, the text
// report's sections, and one-line errors with exit status 2.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "common/csv.h"
#include "common/error.h"
#include "common/output_file.h"
#include "modeler/io/readers.h"
#include "regions/report/report_command.h"
#include "regions/report/writers.h"
#include "tests/regions/report_fixtures.h"

namespace ompscale::regions::report {
namespace {

using testing::fixture_dir;
using testing::fixture_report;

std::size_t point_count(const Report& r) {
  std::size_t n = 0;
  for (const RegionReport& rr : r.regions) {
    for (const SeriesAnalysis& s : rr.series) n += s.points.size();
  }
  return n;
}

/// Runs `ompscan report ARGS...` in-process; returns the exit status, stderr in `err`.
int run_report(std::vector<std::string> args, std::string& err) {
  args.insert(args.begin(), "report");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  ::testing::internal::CaptureStderr();
  ::testing::internal::CaptureStdout();
  const int status = report_command(static_cast<int>(argv.size()), argv.data());
  ::testing::internal::GetCapturedStdout();
  err = ::testing::internal::GetCapturedStderr();
  return status;
}

class TempDir {
 public:
  TempDir()
      : path_(std::filesystem::temp_directory_path() /
              ("ompscan-report-test-" + std::to_string(::getpid()) + "-" +
               std::to_string(counter_++))) {
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  std::string str() const { return path_.string(); }

 private:
  static inline int counter_ = 0;
  std::filesystem::path path_;
};

TEST(ReportFormats, JsonHoldsTheAnalysis) {
  const Report& report = fixture_report("mandel-static");
  const nlohmann::json j = nlohmann::json::parse(format_json(report));
  EXPECT_EQ(j["format"], "ompscan-report-1");
  EXPECT_EQ(j["runs"]["analysed"], 24);
  EXPECT_EQ(j["runs"]["failed"].size(), 1u);
  EXPECT_EQ(j["runs"]["failed"][0]["signal"], 9);
  EXPECT_EQ(j["runs"]["without_profile"].size(), 1u);
  EXPECT_EQ(j["thread_counts"], (std::vector<int>{1, 2, 4, 8}));
  EXPECT_EQ(j["reference_input"], "800");
  EXPECT_EQ(j["pop"].size(), 24u);
  ASSERT_EQ(j["regions"].size(), report.regions.size());
  const nlohmann::json& first = j["regions"][0];
  EXPECT_EQ(first["rank"], 1);
  EXPECT_EQ(first["key"], "parallel:mandel+0x1233");
  EXPECT_EQ(first["location"]["line"], 42);
  EXPECT_DOUBLE_EQ(first["potential_gain_s"].get<double>(), report.regions[0].potential_gain);
  const nlohmann::json& series = first["series"][1];
  EXPECT_EQ(series["input"], "800");
  EXPECT_EQ(series["hints"][0]["kind"], "imbalance");
  const nlohmann::json& at8 = series["points"][3];
  EXPECT_EQ(at8["threads"], 8);
  double split = at8["loss"]["other_s"].get<double>();
  for (const char* k :
       {"imbalance_s", "walkthrough_s", "startup_s", "lock_contention_s", "lock_algorithm_s"}) {
    split += at8["loss"][k].get<double>();
  }
  EXPECT_NEAR(split, at8["lost_s"].get<double>(), 1e-9);
  EXPECT_EQ(first["thread_models"].size(), 2u);
  EXPECT_TRUE(first["input_model"].is_null());
  // The unresolved region has no file in its location.
  for (const auto& r : j["regions"]) {
    if (r["label"] == "mandel+0x1a2f") {
      EXPECT_FALSE(r["location"].contains("file"));
    }
  }
  const nlohmann::json stencil =
      nlohmann::json::parse(format_json(fixture_report("stencil-inputs")));
  bool any_input_model = false;
  for (const auto& r : stencil["regions"]) {
    if (r["input_model"].is_null()) continue;
    any_input_model = true;
    EXPECT_FALSE(r["input_model"]["candidates"].empty());
    EXPECT_EQ(r["input_model"]["predictions"].size(), 8u);
  }
  EXPECT_TRUE(any_input_model);
}

TEST(ReportFormats, CsvHasOneRowPerPointAndFixedColumns) {
  const Report& report = fixture_report("locks");
  const std::vector<CsvRecord> rows = read_csv(format_csv(report), "report.csv");
  ASSERT_EQ(rows.size(), point_count(report) + 1);
  const std::vector<std::string>& header = rows[0].fields;
  ASSERT_EQ(header.size(), 35u);
  EXPECT_EQ(header.front(), "rank");
  EXPECT_EQ(header[9], "time_s");
  EXPECT_EQ(header[26], "potential_gain_s");
  EXPECT_EQ(header[29], "task_s");
  EXPECT_EQ(header[31], "cost_task_wait_s");
  EXPECT_EQ(header[32], "runtime");
  EXPECT_EQ(header.back(), "cost_team_start_s");
  auto column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const std::vector<std::string>& f = rows[i].fields;
    ASSERT_EQ(f.size(), header.size()) << "row " << i;
    if (f[column("kind")] == "serial") {
      EXPECT_TRUE(f[column("loss_imbalance_s")].empty());
      continue;
    }
    double split = 0.0;
    for (const char* k :
         {"loss_imbalance_s", "loss_walkthrough_s", "loss_startup_s", "loss_lock_contention_s",
          "loss_lock_algorithm_s", "loss_task_wait_s", "loss_other_s"}) {
      split += std::stod(f[column(k)]);
    }
    EXPECT_NEAR(split, std::stod(f[column("lost_s")]), 1e-12);
  }
  EXPECT_EQ(rows[1].fields[column("region")], "lockbench.c:52 (shared_lock)");
}

// The task fields of every format, by hand from tests/regions/report_fixtures.h: created and
// executed scaled per run by executions / executions_measured, then the mean over repetitions.
TEST(ReportFormats, JsonHasTasksOnlyWhereThereAreTasks) {
  const nlohmann::json j = nlohmann::json::parse(format_json(testing::fixture_report("tasks")));
  bool seen_tasks = false, seen_plain = false;
  for (const auto& r : j["regions"]) {
    ASSERT_EQ(r["series"].size(), 1u);
    const nlohmann::json& points = r["series"][0]["points"];
    ASSERT_EQ(points.size(), 2u);
    if (r["label"] == "fib.c:20 (main)") {
      seen_tasks = true;
      const nlohmann::json& one = points[0]["tasks"];
      const nlohmann::json& two = points[1]["tasks"];
      EXPECT_EQ(points[1]["threads"], 2);
      EXPECT_DOUBLE_EQ(one["created"].get<double>(), 1000);
      EXPECT_DOUBLE_EQ(one["executed"].get<double>(), 1000);
      EXPECT_NEAR(one["task_s"].get<double>(), 5.3e-3, 1e-15);
      EXPECT_DOUBLE_EQ(two["created"].get<double>(), 1000);
      EXPECT_DOUBLE_EQ(two["executed"].get<double>(), 995);
      EXPECT_NEAR(two["task_s"].get<double>(), 2.625e-3, 1e-15);
    } else {
      if (r["label"] == "fib.c:40 (main)") seen_plain = true;
      for (const auto& p : points) EXPECT_FALSE(p.contains("tasks")) << r["label"];
    }
  }
  EXPECT_TRUE(seen_tasks);
  EXPECT_TRUE(seen_plain);
  for (const auto& p : j["program"][0]["points"]) EXPECT_FALSE(p.contains("tasks"));
  // The fixtures without tasks have none in their report.
  const nlohmann::json locks = nlohmann::json::parse(format_json(fixture_report("locks")));
  for (const auto& r : locks["regions"]) {
    for (const auto& s : r["series"]) {
      for (const auto& p : s["points"]) EXPECT_FALSE(p.contains("tasks")) << r["label"];
    }
  }
}

TEST(ReportFormats, CsvHasTaskColumnsAtTheEnd) {
  const std::vector<CsvRecord> rows =
      read_csv(format_csv(testing::fixture_report("tasks")), "report.csv");
  const std::vector<std::string>& header = rows[0].fields;
  ASSERT_EQ(header.size(), 35u);
  EXPECT_EQ(std::vector<std::string>(header.end() - 9, header.end()),
            (std::vector<std::string>{"potential_gain_s", "tasks_created", "tasks_executed",
                                      "task_s", "loss_task_wait_s", "cost_task_wait_s", "runtime",
                                      "loss_team_start_s", "cost_team_start_s"}));
  auto column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  std::size_t task_rows = 0;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const std::vector<std::string>& f = rows[i].fields;
    ASSERT_EQ(f.size(), header.size()) << "row " << i;
    const std::string& region = f[column("region")];
    if (f[column("kind")] == "serial") {
      EXPECT_TRUE(f[column("tasks_created")].empty());
      EXPECT_TRUE(f[column("task_s")].empty());
    } else if (region == "fib.c:20 (main)") {
      ++task_rows;
      const bool two = f[column("threads")] == "2";
      EXPECT_DOUBLE_EQ(std::stod(f[column("tasks_created")]), 1000);
      EXPECT_DOUBLE_EQ(std::stod(f[column("tasks_executed")]), two ? 995 : 1000);
      EXPECT_NEAR(std::stod(f[column("task_s")]), two ? 2.625e-3 : 5.3e-3, 1e-15);
    } else {
      EXPECT_EQ(f[column("tasks_created")], "0") << region;
      EXPECT_EQ(f[column("tasks_executed")], "0") << region;
      EXPECT_EQ(f[column("task_s")], "0") << region;
    }
  }
  EXPECT_EQ(task_rows, 2u);
}

TEST(ReportFormats, TextHasATaskLineForRegionsWithTasks) {
  const std::string text = format_text(testing::fixture_report("tasks"));
  // At 2 threads: 2.625 ms per thread in tasks of the region's 7.5 ms.
  const std::string line =
      "  Tasks at 2 threads: 1000 created, 995 executed, 0.002625 s per thread in explicit tasks "
      "(35.0% of the region's time)\n";
  const std::size_t at = text.find(line);
  ASSERT_NE(at, std::string::npos) << text;
  EXPECT_EQ(text.find("Tasks at", at + line.size()), std::string::npos) << "one region has tasks";
  // In the task region's section.
  const std::size_t section = text.rfind("\nRegion ", at);
  ASSERT_NE(section, std::string::npos);
  const std::string heading = text.substr(section + 1, text.find('\n', section + 1) - section);
  EXPECT_NE(heading.find("fib.c:20 (main)"), std::string::npos) << heading;
  EXPECT_EQ(format_text(fixture_report("locks")).find("Tasks at"), std::string::npos);
}

TEST(ReportFormats, ExtrapTextReadsBackWithOneParameter) {
  const Report& report = fixture_report("locks");
  const std::string text = format_extrap(report);
  EXPECT_EQ(text.rfind("# ompscan report of", 0), 0u);
  const modeler::Dataset data = modeler::parse_dataset(text, "regions.txt", {});
  EXPECT_EQ(data.parameter, "threads");
  ASSERT_EQ(data.kernels.size(), report.regions.size());
  const modeler::Kernel& k = data.kernels[0];
  EXPECT_EQ(k.size(), 4u);
  const RegionPoint* p = report.regions[0].region.find("2000000", 8);
  ASSERT_NE(p, nullptr);
  ASSERT_EQ(k.repetitions(3).size(), p->times.size());
  EXPECT_DOUBLE_EQ(k.repetitions(3)[0], p->times[0]);
}

TEST(ReportFormats, ExtrapTextWithTwoParameters) {
  const std::string text = format_extrap(fixture_report("stencil-inputs"));
  EXPECT_NE(text.find("PARAMETER threads\nPARAMETER input\nPOINTS ( 1 256 ) ( 2 256 )"),
            std::string::npos);
  EXPECT_NE(text.find("( 8 2048 )\n"), std::string::npos);
  EXPECT_NE(text.find("METRIC time\nREGION "), std::string::npos);
  // 2 regions x 16 points, one DATA line each.
  std::size_t data_lines = 0;
  for (std::size_t at = text.find("\nDATA "); at != std::string::npos;
       at = text.find("\nDATA ", at + 1)) {
    ++data_lines;
  }
  EXPECT_EQ(data_lines, 32u);
}

TEST(ReportFormats, SvgCharts) {
  const auto files = format_svgs(fixture_report("mandel-static"));
  std::vector<std::string> names;
  for (const auto& [name, svg] : files) {
    names.push_back(name);
    EXPECT_EQ(svg.rfind("<?xml", 0), 0u) << name;
    EXPECT_NE(svg.find("<svg"), std::string::npos) << name;
    EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n") << name;
  }
  // 4 regions (fewer than --top 5): a speedup chart and a heat map each; the program's heat map;
  // the models.
  EXPECT_EQ(names, (std::vector<std::string>{
                       "speedup-1.svg", "speedup-2.svg", "speedup-3.svg", "speedup-4.svg",
                       "efficiency-program.svg", "efficiency-1.svg", "efficiency-2.svg",
                       "efficiency-3.svg", "efficiency-4.svg", "models.svg"}));
  // One input: no heat maps.
  for (const auto& [name, svg] : format_svgs(fixture_report("locks"))) {
    EXPECT_EQ(name.find("efficiency"), std::string::npos);
  }
}

TEST(ReportFormats, TextFitsA120ColumnTerminal) {
  for (const char* fixture : {"mandel-static", "locks", "tasks", "stencil-inputs"}) {
    const std::string wide = format_text(fixture_report(fixture));
    const std::string narrow = format_text(fixture_report(fixture), 120);
    std::istringstream lines(narrow);
    for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 120u) << line;
    // Nothing is lost: every region's hint and the notes are still there.
    for (const char* part : {"Hints at", "Notes:", "POP efficiencies"}) {
      EXPECT_EQ(wide.find(part) != std::string::npos, narrow.find(part) != std::string::npos)
          << fixture << ": " << part;
    }
  }
  // The wide report (files, --wide) keeps whole lines.
  const std::string wide = format_text(fixture_report("mandel-static"));
  std::size_t widest = 0;
  std::istringstream lines(wide);
  for (std::string line; std::getline(lines, line);) widest = std::max(widest, line.size());
  EXPECT_GT(widest, 120u);
}

TEST(ReportFormats, TextHasEverySection) {
  const std::string text = format_text(fixture_report("mandel-static"));
  for (const char* part :
       {"Runs: 24 analysed (threads 1, 2, 4, 8; input(s) 400, 800), 1 failed, 1 without profile",
        "failed (excluded): t8-in800-r3 (signal 9)", "without profile (excluded): t2-in400-r3",
        "Program (run wall time, input 800)", "Efficiency of the program (threads x inputs)",
        "Regions by potential gain (input 800", "Region 1: mandel.c:42 (main)",
        "60.0% measured (times scaled by 1.67)", "Hints at 8 threads",
        "schedule(dynamic) or schedule(guided)", "Model over threads (input 800)",
        "POP efficiencies per run", "Notes:"}) {
    EXPECT_NE(text.find(part), std::string::npos) << part;
  }
  const std::string locks = format_text(fixture_report("locks"));
  EXPECT_NE(locks.find("mostly contention"), std::string::npos);
  EXPECT_NE(locks.find("mostly the algorithm"), std::string::npos);
}

TEST(ReportFormats, CommandWritesOutputsAtomically) {
  TempDir tmp;
  std::string err;
  ASSERT_EQ(run_report({fixture_dir("locks"), "--format", "json", "-o", tmp / "r.json", "--svg",
                        tmp / "charts", "--top", "1", "--predict", "16,64"},
                       err),
            0)
      << err;
  EXPECT_TRUE(err.empty()) << err;
  const nlohmann::json j = nlohmann::json::parse(read_input(tmp / "r.json"));
  EXPECT_EQ(j["predict_at"], (std::vector<double>{16, 64}));
  EXPECT_TRUE(std::filesystem::exists(tmp / "charts/speedup-1.svg"));
  EXPECT_FALSE(std::filesystem::exists(tmp / "charts/speedup-2.svg"));
  EXPECT_TRUE(std::filesystem::exists(tmp / "charts/models.svg"));
  for (const auto& entry : std::filesystem::directory_iterator(tmp.str())) {
    EXPECT_EQ(entry.path().string().find(".tmp"), std::string::npos) << entry.path();
  }
}

/// Exit status 2 and exactly one line on stderr, starting "ompscan: ".
void expect_one_line_error(const std::vector<std::string>& args, const std::string& contains) {
  std::string err;
  EXPECT_EQ(run_report(args, err), 2);
  EXPECT_EQ(err.rfind("ompscan: ", 0), 0u) << err;
  ASSERT_FALSE(err.empty());
  EXPECT_EQ(err.find('\n'), err.size() - 1) << err;
  EXPECT_NE(err.find(contains), std::string::npos) << err;
}

TEST(ReportFormats, ErrorsAreOneLineWithStatusTwo) {
  TempDir empty;
  expect_one_line_error({empty.str()}, ": no usable runs (0 failed, 0 without profile)");
  expect_one_line_error({fixture_dir("none-such")}, "none-such: no such directory");

  // A run file with a broken field is an error; a stray file that is no run file is skipped.
  TempDir bad;
  std::filesystem::copy_file(fixture_dir("locks") + "/t1-in2000000-r0.json", bad / "a.json");
  std::ofstream(bad / "b.json") << "{\"format\": \"ompscan-run-1\"}";
  expect_one_line_error({bad.str()}, bad / "b.json" + ":1: missing field 'threads'");
  std::ofstream(bad / "b.json") << "{ not json";
  std::string err;
  EXPECT_EQ(run_report({bad.str()}, err), 0) << err;

  TempDir failed_only;
  std::filesystem::copy_file(fixture_dir("mandel-static") + "/t8-in800-r3.json",
                             failed_only / "t8-in800-r3.json");
  expect_one_line_error({failed_only.str()},
                        "no usable runs (1 failed, 0 without profile); t8-in800-r3: signal 9");
  // Runs of a program without OpenMP (ompscan run -- /bin/true) say why they have no profile.
  TempDir no_profile;
  std::filesystem::copy_file(fixture_dir("mandel-static") + "/t2-in400-r3.json",
                             no_profile / "t2-in400-r3.json");
  expect_one_line_error({no_profile.str()},
                        "no usable runs (0 failed, 1 without profile); t2-in400-r3: ");

  expect_one_line_error({fixture_dir("locks"), "--format", "yaml"}, "--format");
  expect_one_line_error({fixture_dir("locks"), "--input", "17"},
                        "--input '17': the runs have input(s) 2000000");
  expect_one_line_error({fixture_dir("locks"), "--predict", "0"}, "--predict");
  expect_one_line_error({fixture_dir("locks"), "--input-sizes", "1,2"}, "--input-sizes");
  expect_one_line_error({}, "dir is required");
}

}  // namespace
}  // namespace ompscale::regions::report

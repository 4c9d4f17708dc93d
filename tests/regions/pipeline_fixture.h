// The fixture of ompscan's end-to-end tests (pipeline_test.cc, pipeline_costs_test.cc):
// `ompscan run` of a test application (tests/apps, gcc- and clang-built) at 1 and 2 threads,
// `ompscan report --format json`, and helpers to find regions, series, points and hints in the
// report.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tests/support/process.h"

namespace ompscale::regions::pipeline {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using ::testing::HasSubstr;

inline constexpr int kTimingAttempts = 3;
// How an attempt says that its runs had fewer CPUs than threads (see expect_in_one_attempt).
inline constexpr std::string_view kTimeShared = "time-shared";

enum class Compiler { kGnu, kLlvm };

inline std::string compiler_name(Compiler compiler) {
  return compiler == Compiler::kGnu ? "gnu" : "llvm";
}

// The regions of one report whose label contains `text` (kind parallel).
inline std::vector<const Json*> parallel_regions(const Json& report, const std::string& text = "") {
  std::vector<const Json*> found;
  for (const Json& r : report["regions"]) {
    if (r["kind"] == "parallel" && r["label"].get<std::string>().find(text) != std::string::npos) {
      found.push_back(&r);
    }
  }
  return found;
}

// The region's series at `input` ("" without --inputs), or null.
inline const Json* series_at(const Json& region, const std::string& input = "") {
  for (const Json& s : region["series"]) {
    if (s["input"] == input) return &s;
  }
  return nullptr;
}

// The series' point at `threads`, or null.
inline const Json* point_at(const Json& series, int threads) {
  for (const Json& p : series["points"]) {
    if (p["threads"] == threads) return &p;
  }
  return nullptr;
}

// The series of the one parallel region of `file` in `report` and its point at `threads`, for a
// test that retries: where the report lacks one, `point` is null and `missing` says what (each
// lack is a failure of the test as well).
struct FoundPoint {
  const Json* series = nullptr;
  const Json* point = nullptr;
  std::string missing;
};
inline FoundPoint only_region_point(const Json& report, const std::string& file, int threads) {
  FoundPoint found;
  const std::vector<const Json*> regions = parallel_regions(report, file);
  EXPECT_EQ(regions.size(), 1u) << file;
  if (regions.size() != 1) {
    found.missing = "no single " + file + " region";
    return found;
  }
  found.series = series_at(*regions[0]);
  found.point = found.series != nullptr ? point_at(*found.series, threads) : nullptr;
  EXPECT_NE(found.point, nullptr) << file;
  if (found.point == nullptr) found.missing = "no point at " + std::to_string(threads) + " threads";
  return found;
}

// The series' hint of `kind`, or null.
inline const Json* hint_of(const Json& series, const std::string& kind) {
  for (const Json& h : series["hints"]) {
    if (h["kind"] == kind) return &h;
  }
  return nullptr;
}

inline double gain_of(const Json* hint) {
  return hint == nullptr ? 0.0 : hint->at("gain_s").get<double>();
}

// The region's lock sites (report "locks": one per site and thread count) are all of `kind`, count
// `acquisitions` at each of 1 and 2 threads, and the site in `file` has nearly all of them. Not
// all: through libomp's GOMP ABI, about one run in four reports one or two of 100000 critical
// acquisitions with a code pointer inside libomp (GOMP_critical_start), a second site.
inline void expect_lock_sites(const Json& region, const std::string& kind, double acquisitions,
                              const std::string& file) {
  for (int threads : {1, 2}) {
    double all = 0, in_file = 0;
    for (const Json& site : region["locks"]) {
      if (site["threads"] != threads) continue;
      EXPECT_EQ(site["kind"], kind) << site.dump();
      all += site["acquisitions"].get<double>();
      if (site["location"].get<std::string>().find(file) != std::string::npos) {
        in_file += site["acquisitions"].get<double>();
        EXPECT_GT(site["fastest_ns"].get<double>(), 0) << site.dump();
      }
    }
    EXPECT_EQ(all, acquisitions) << threads << " threads: " << region["locks"].dump();
    EXPECT_GE(in_file, 0.99 * acquisitions) << threads << " threads: " << region["locks"].dump();
  }
}

class PipelineTest : public ::testing::TestWithParam<Compiler> {
 protected:
  void SetUp() override {
    std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::replace(name.begin(), name.end(), '/', '-');
    scratch_ =
        fs::temp_directory_path() / ("ompscan-pipeline-" + std::to_string(getpid()) + "-" + name);
    fs::remove_all(scratch_);
    fs::create_directories(scratch_);
    // The machine's other load does not mark runs time-shared (only an affinity mask does):
    // these tests are about what the application does.
    setenv("OMPSCAN_PROC_STAT", OMPSCALE_TEST_DATA "/proc_stat/quiet", 1);
  }
  void TearDown() override {
    unsetenv("OMPSCAN_PROC_STAT");
    fs::remove_all(scratch_);
  }

  // For a test whose condition is a timing ratio: the machine's real load marks runs
  // time-shared, so the report leaves out the runs another process slowed (or the attempt says
  // it was time-shared) instead of judging the application by them.
  void judge_time_sharing_by_the_machines_load() { unsetenv("OMPSCAN_PROC_STAT"); }

  std::string app(const std::string& name) const {
    return (fs::path(GetParam() == Compiler::kGnu ? OMPSCALE_APPS_GNU_DIR
                                                  : OMPSCALE_APPS_LLVM_DIR) /
            name)
        .string();
  }
  fs::path runs_dir(const std::string& tag) const { return scratch_ / tag; }

  // `ompscan run --threads 1,2 RUN_OPTIONS -o DIR/TAG -- APP ARGS`, then `ompscan report DIR/TAG
  // --format json REPORT_OPTIONS`: the report, or null after a failure (reported).
  Json scan(const std::string& tag, const std::vector<std::string>& run_options,
            std::vector<std::string> app_argv,
            const std::vector<std::string>& report_options = {}) {
    app_argv[0] = app(app_argv[0]);
    EXPECT_TRUE(fs::exists(app_argv[0])) << app_argv[0] << " is not built";
    std::vector<std::string> run = {OMPSCALE_OMPSCAN_BIN, "run", "--threads", "1,2"};
    run.insert(run.end(), {"--progress", "never", "--tool", OMPSCALE_OMPSCAN_TOOL});
    // The machine's costs only where a test prices hints with them (a second per runtime).
    if (!probe_) run.push_back("--no-probe");
    run.insert(run.end(), {"-o", runs_dir(tag).string()});
    run.insert(run.end(), run_options.begin(), run_options.end());
    run.push_back("--");
    run.insert(run.end(), app_argv.begin(), app_argv.end());
    const test_support::Outcome ran = test_support::run_program(run, scratch_);
    if (ran.status != 0) {
      ADD_FAILURE() << "ompscan run of " << app_argv[0] << " exited " << ran.status << ": "
                    << ran.err;
      return nullptr;
    }
    std::vector<std::string> report = {OMPSCALE_OMPSCAN_BIN, "report", runs_dir(tag).string(),
                                       "--format", "json"};
    report.insert(report.end(), report_options.begin(), report_options.end());
    const test_support::Outcome reported = test_support::run_program(report, scratch_);
    if (reported.status != 0) {
      ADD_FAILURE() << "ompscan report of " << app_argv[0] << " exited " << reported.status << ": "
                    << reported.err;
      return nullptr;
    }
    Json j = Json::parse(reported.out, nullptr, false);
    if (j.is_discarded() || j.value("format", "") != "ompscan-report-1") {
      ADD_FAILURE() << "not an ompscan-report-1: " << reported.out.substr(0, 500);
      return nullptr;
    }
    // Every planned run was analysed: none failed or lost its profile.
    EXPECT_TRUE(j["runs"]["failed"].empty()) << j["runs"].dump();
    EXPECT_TRUE(j["runs"]["without_profile"].empty()) << j["runs"].dump();
    EXPECT_EQ(j["thread_counts"], expected_thread_counts_);
    return j;
  }

  // The run files `ompscan run` wrote for TAG, by name; native runs (a GCC build on its own
  // libgomp, without the tool) only when asked for.
  std::vector<Json> run_files(const std::string& tag, bool with_native = false) const {
    std::vector<fs::path> paths;
    for (const auto& entry : fs::directory_iterator(runs_dir(tag))) {
      if (entry.path().extension() == ".json") paths.push_back(entry.path());
    }
    std::sort(paths.begin(), paths.end());
    std::vector<Json> files;
    for (const fs::path& p : paths) {
      Json file = Json::parse(test_support::slurp(p));
      if (file.value("format", "") != "ompscan-run-1") continue;  // the machine's costs
      if (with_native || !file.value("native", false)) files.push_back(std::move(file));
    }
    return files;
  }

  // Runs `experiment` (one attempt: returns "" when its timing conditions held, else what it saw)
  // until it succeeds, at most kTimingAttempts times. An attempt whose runs were time-shared (the
  // other core busy: fewer CPUs than threads) returns text starting with kTimeShared; when every
  // attempt was, the timing condition cannot be judged on this machine now, and the test skips.
  void expect_in_one_attempt(const std::string& what,
                             const std::function<std::string(int attempt)>& experiment) {
    std::string seen;
    int time_shared = 0;
    for (int attempt = 0; attempt < kTimingAttempts; ++attempt) {
      const std::string failure = experiment(attempt);
      if (HasFatalFailure()) return;
      if (failure.empty()) return;
      if (failure.rfind(kTimeShared, 0) == 0) ++time_shared;
      seen += "attempt " + std::to_string(attempt + 1) + ": " + failure + "\n";
    }
    if (time_shared == kTimingAttempts) {
      GTEST_SKIP() << what << ": every attempt's runs were time-shared (another process took a "
                   << "CPU), so the timing condition cannot be judged:\n"
                   << seen;
    }
    ADD_FAILURE() << what << " in none of " << kTimingAttempts << " attempts ("
                  << compiler_name(GetParam()) << "):\n"
                  << seen;
  }

  fs::path scratch_;
  Json expected_thread_counts_ = Json({1, 2});  // the team sizes the report places runs at
  bool probe_ = false;  // ompscan run measures the machine's costs (ompscan-probe) first
};

}  // namespace ompscale::regions::pipeline

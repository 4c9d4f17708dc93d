// `ompdash nightly` end to end with real measurements: nights of an unchanged runtime report
// nothing; a night whose runtime has a slower barrier (tests/support/barrier_delay.c preloaded
// into the ompbench workers) reports barrier and the constructs that contain a barrier as
// regressed at 2 threads, and nothing else. Every night, the baseline ones included, runs with
// the interposer preloaded (a delay of 0 there), so the one difference between the nights is the
// delay itself.

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "../support/process.h"

namespace ompscale::dashboard {
namespace {

namespace fs = std::filesystem;
using test_support::run_program;

// Constructs whose compiled code calls the barrier entry point in what is timed: an explicit
// barrier, or the implicit one at the end of a single or a worksharing loop, which gcc and clang
// emit as a call (GOMP_barrier, __kmpc_barrier; libgomp's GOMP_loop_end and the join of a
// parallel region wait inside the runtime, out of the interposer's reach).
const std::set<std::string> kContainBarrier = {"barrier",
                                               "barrier_late",
                                               "single",
                                               "for",
                                               "ordered",
                                               "copyprivate",
                                               "task_barrier",
                                               "for_static",
                                               "for_dynamic_monotonic",
                                               "for_dynamic_nonmonotonic",
                                               "for_guided_monotonic",
                                               "for_guided_nonmonotonic"};

class NightlyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fmt::format("ompdash-nightly-{}", getpid());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A configuration whose sweep runs with the barrier delay preloaded, `delay_ns` long.
  std::string config(int delay_ns, const std::string& label) {
    const nlohmann::json c = {{"db", "history.sqlite"},
                              {"site", "site"},
                              {"work", "nights"},
                              {"label", label},
                              {"ompbench",
                               {{"args",
                                 {"--suite", "sync", "--threads", "1,2", "--canary-store",
                                  (dir_ / "canaries.json").string(), "--max-wait", "5"}},
                                {"environment",
                                 {{"LD_PRELOAD", OMPSCALE_BARRIER_DELAY},
                                  {"OMPSCALE_BARRIER_DELAY_NS", std::to_string(delay_ns)}}}}},
                              {"regressions", {{"fail_on_regression", true}}},
                              {"confirm", {{"rounds", 8}, {"reps", 10}}},
                              {"tools",
                               {{"ompbench", OMPSCALE_OMPBENCH_BIN},
                                {"modeler", OMPSCALE_MODELER_BIN},
                                {"ompscan", OMPSCALE_OMPSCAN_BIN}}}};
    const fs::path path = dir_ / (label + ".json");
    test_support::spit(path, c.dump(2));
    return path.string();
  }

  test_support::Outcome night(const std::string& config_path) {
    return run_program({OMPSCALE_OMPDASH_BIN, "nightly", "--config", config_path}, dir_);
  }

  nlohmann::json findings() {
    const auto out = run_program({OMPSCALE_OMPDASH_BIN, "regressions", "--db",
                                  (dir_ / "history.sqlite").string(), "--format", "json"},
                                 dir_);
    EXPECT_EQ(out.status, 0) << out.err;
    return nlohmann::json::parse(out.out);
  }

  std::string baseline_then_planted(nlohmann::json& report);

  static bool unusual(const nlohmann::json& report) {
    for (const auto& f : report["findings"]) {
      if (f["kind"] == "unusual phase") return true;
    }
    return false;
  }

  // "construct runtime" of each worse finding.
  static std::set<std::string> worse_findings(const nlohmann::json& report) {
    std::set<std::string> found;
    for (const auto& f : report["findings"]) {
      if (!f["worse"].get<bool>()) continue;
      found.insert(f["construct"].get<std::string>() + " " + f["runtime"].get<std::string>());
    }
    return found;
  }

  // A worse finding the delay cannot cause (at one thread, or of a construct without a barrier
  // call): the machine's own, "" when there is none.
  static std::string not_from_the_delay(const nlohmann::json& report) {
    for (const auto& f : report["findings"]) {
      if (!f["worse"].get<bool>()) continue;
      if (f["threads"] != 2 || !kContainBarrier.contains(f["construct"].get<std::string>())) {
        return fmt::format("{} at {} thread(s): {}", f["kernel"].get<std::string>(),
                           f["threads"].dump(), f["detail"].get<std::string>());
      }
    }
    return "";
  }

  fs::path dir_;
};

// One history in a fresh directory: three nights of the unchanged runtime, none of which may fail
// (a kernel the machine's noise flags there is measured again by the night's A/B, which must not
// confirm it: that is what the A/B is for, and what would page someone), then planted nights
// until one is judged (a night in an unusual machine state is reported as such, not judged; three
// at most). Returns "" when the planted night reported the barrier of both runtimes and nothing
// the delay cannot cause (at one thread, or a construct without a barrier call), with its findings
// in `report`; otherwise what went wrong.
std::string NightlyTest::baseline_then_planted(nlohmann::json& report) {
  fs::remove_all(dir_);
  fs::create_directories(dir_);
  const std::string baseline = config(0, "baseline");
  for (int n = 0; n < 3; ++n) {
    const auto out = night(baseline);
    if (out.status == 2) return "baseline night failed: " + out.err;
    if (out.status != 0) {
      return fmt::format("baseline night {} failed on a regression its A/B confirmed:\n{}", n + 1,
                         out.out);
    }
  }
  const std::string planted = config(1000, "planted");
  for (int attempt = 0; attempt < 3; ++attempt) {
    const auto out = night(planted);
    report = findings();
    if (unusual(report)) continue;
    if (out.status != 1) {
      return "planted night exited " + std::to_string(out.status) + ":\n" + out.out + out.err;
    }
    const std::string foreign = not_from_the_delay(report);
    if (!foreign.empty()) return "planted night also reported " + foreign;
    const std::set<std::string> found = worse_findings(report);
    if (!found.contains("barrier libgomp") || !found.contains("barrier libomp")) {
      return fmt::format("planted night did not report the barrier of both runtimes, only {}",
                         fmt::join(found, ", "));
    }
    // The night failed on regressions its A/B (the previous night's build, delay 0, against
    // tonight's) confirmed.
    for (const auto& f : report["findings"]) {
      if (f["construct"] == "barrier" && f["worse"].get<bool>() &&
          (f["confirmation"].is_null() || !f["confirmation"]["confirmed"].get<bool>())) {
        return "the barrier's regression was not confirmed by the A/B: " + f.dump();
      }
    }
    return "";
  }
  return "three planted nights in an unusual machine state";
}

TEST_F(NightlyTest, APlantedBarrierRegressionIsFoundAndNothingElse) {
#ifdef OMPSCALE_SANITIZED
  GTEST_SKIP() << "measured end to end: runs in the Release build (scripts/test.sh)";
#endif
  // This VM's own state shifts now and then: for a few kernels (bench/false_alarms measures how
  // often an unchanged runtime is reported), or for all of them when the other core is busy (the
  // canaries then flip between states, and a history left with one or two runs in the planted
  // night's state has noise floors above the delay). A history in which it did so is made again,
  // three histories at most; the planted regression must be found alone in one of them.
  nlohmann::json report;
  std::string failure;
  for (int history = 1; history <= 3; ++history) {
    failure = baseline_then_planted(report);
    if (failure.empty()) break;
    std::cout << "history " << history << ": " << failure << "\n";
  }
  ASSERT_EQ(failure, "") << "in each of three histories";
  std::cout << "found:";
  for (const std::string& f : worse_findings(report)) std::cout << " [" << f << "]";
  std::cout << "\n";
  EXPECT_TRUE(fs::exists(dir_ / "site" / "index.html"));
  const std::string site = test_support::slurp(dir_ / "site" / "index.html");
  EXPECT_NE(site.find("confirmed by A/B"), std::string::npos);

  // The same night's regressions measured again with tonight's build on both sides (`ompdash
  // confirm`, as a user names builds): unchanged, so they no longer fail a night.
  std::vector<fs::path> nights;
  for (const auto& entry : fs::directory_iterator(dir_ / "nights")) nights.push_back(entry.path());
  std::sort(nights.begin(), nights.end());
  const std::string tonight = (nights.back() / "build.json").string();
  const auto confirm = run_program(
      {OMPSCALE_OMPDASH_BIN, "confirm", "--db", (dir_ / "history.sqlite").string(), "--old-build",
       tonight, "--new-build", tonight, "--rounds", "8", "--reps", "10",
       "--ompbench-arg=--canary-store", "--ompbench-arg=" + (dir_ / "canaries.json").string()},
      dir_);
  ASSERT_EQ(confirm.status, 0) << confirm.out << confirm.err;
  EXPECT_NE(confirm.out.find("A/B"), std::string::npos) << confirm.out;
  const nlohmann::json after = findings();
  int slower = 0;
  for (const auto& f : after["findings"]) {
    if (!f["worse"].get<bool>()) continue;
    ASSERT_FALSE(f["confirmation"].is_null()) << f.dump();
    slower += f["confirmation"]["verdict"] == "slower";
  }
  // Alike builds: at most a rare false confirmation among the kernels (1% each).
  EXPECT_LE(slower, 1) << after.dump(2);
  EXPECT_EQ(after["failing"].get<int>(), slower);
}

TEST_F(NightlyTest, ABadConfigurationOrStepIsOneLineAndExitTwo) {
  test_support::spit(dir_ / "bad.json", "{\"site\": \"s\"}");
  const auto missing = night((dir_ / "bad.json").string());
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("missing field 'db'"), std::string::npos) << missing.err;
  nlohmann::json c = {{"db", "h.sqlite"},
                      {"ompbench", {{"args", {"--construct", "no_such_construct"}}}},
                      {"tools", {{"ompbench", OMPSCALE_OMPBENCH_BIN}}}};
  test_support::spit(dir_ / "failing.json", c.dump());
  const auto failing = night((dir_ / "failing.json").string());
  EXPECT_EQ(failing.status, 2);
  EXPECT_NE(failing.err.find("failed (exit status 2); its output is in"), std::string::npos)
      << failing.err;
  EXPECT_FALSE(fs::exists(dir_ / "h.sqlite"));
}

}  // namespace
}  // namespace ompscale::dashboard

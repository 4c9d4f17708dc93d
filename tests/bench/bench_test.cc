// The benchmark programs as a user meets them: --help answers without measuring, and SIGTERM to
// run_spread stops its ompbench processes and removes its temporary directory.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/temporary_directory.h"
#include "tests/support/process.h"

namespace {

namespace fs = std::filesystem;
using ompscale::test_support::ChildProcess;
using ompscale::test_support::Outcome;
using ompscale::test_support::run_program;
using ::testing::HasSubstr;

class BenchPrograms : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string pattern = ompscale::make_temporary_directory("ompscale-bench");
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path dir_;
};

TEST_F(BenchPrograms, HelpAnswersWithoutMeasuring) {
  const std::vector<std::pair<const char*, const char*>> programs = {
      {OMPSCALE_FIT_SPEED_BIN, "--runs"},    {OMPSCALE_MODEL_ACCURACY_BIN, "--kernels"},
      {OMPSCALE_RUN_SPREAD_BIN, "--runs"},   {OMPSCALE_OMPSCAN_OVERHEAD_BIN, "--runs"},
      {OMPSCALE_DASH_SCALE_BIN, "--nights"}, {OMPSCALE_MAKE_HISTORY_BIN, "--from"}};
  for (const auto& [program, flag] : programs) {
    const auto start = std::chrono::steady_clock::now();
    const Outcome help = run_program({program, "--help"}, dir_);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2)) << program;
    EXPECT_EQ(help.status, 0) << program << ": " << help.err;
    EXPECT_THAT(help.out, HasSubstr("Usage: build/bench/")) << program;
    const Outcome bad = run_program({program, "--bogus", "1"}, dir_);
    EXPECT_EQ(bad.status, 2) << program;
    EXPECT_THAT(bad.err, HasSubstr("unknown option --bogus")) << program;
    const Outcome missing = run_program({program, flag}, dir_);
    EXPECT_EQ(missing.status, 2) << program;
    EXPECT_THAT(missing.err, HasSubstr(std::string("no value for ") + flag)) << program;
  }
}

// Numbers on a benchmark's command line are read by common/text.h's parser: a bad one is named
// with its option and the accepted range, exit 2, before any measuring.
TEST_F(BenchPrograms, BadNumbersNameTheOptionAndTheRange) {
  const std::vector<std::vector<std::string>> cases = {
      {OMPSCALE_FIT_SPEED_BIN, "--runs", "12x",
       "--runs '12x': expected a whole number from 1 to 1000"},
      {OMPSCALE_MODEL_ACCURACY_BIN, "--kernels", "0",
       "--kernels '0': expected a whole number from 1 to 10000000"},
      {OMPSCALE_MODEL_ACCURACY_BIN, "--noise", "0.1.2",
       "--noise '0.1.2': expected a number from 0 to 1"},
      {OMPSCALE_CLASS_ACCURACY_BIN, "--seed", "-1",
       "--seed '-1': expected a whole number from 0 to 4294967295"},
      {OMPSCALE_RUN_SPREAD_BIN, "--runs", "", "--runs '': expected a whole number from 1 to 1000"},
      {OMPSCALE_OMPSCAN_OVERHEAD_BIN, "--threads", "2,4",
       "--threads '2,4': expected a whole number from 1 to 4096"},
      {OMPSCALE_DASH_SCALE_BIN, "--nights", "30,1",
       "--nights '1': expected a whole number from 2 to 100000"},
      {OMPSCALE_MAKE_HISTORY_BIN, "--jitter", "2", "--jitter '2': expected a number from 0 to 1"}};
  for (const std::vector<std::string>& c : cases) {
    const Outcome bad = run_program({c[0], c[1], c[2]}, dir_);
    EXPECT_EQ(bad.status, 2) << c[0] << " " << c[1];
    EXPECT_EQ(bad.err, c[3] + "\n") << c[0];
  }
}

// Processes whose command line mentions `text`.
std::vector<std::string> processes_with(const std::string& text) {
  std::vector<std::string> found;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string pid = entry.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "cmdline");
    std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (char& c : cmdline)
      if (c == '\0') c = ' ';
    if (cmdline.find(text) != std::string::npos) found.push_back(pid + ": " + cmdline);
  }
  return found;
}

TEST_F(BenchPrograms, SigtermStopsRunSpreadAndLeavesNothingBehind) {
  ::setenv("TMPDIR", dir_.c_str(), 1);
  ::setenv("OMPBENCH_CANARY_STORE", "none", 1);
  int status = -1;
  fs::path scratch;
  {
    ChildProcess spread({OMPSCALE_RUN_SPREAD_BIN, "--runs", "2"}, "/dev/null", dir_ / "out",
                        dir_ / "err");
    // Wait for the interleaved ompbench processes (their logs appear when they start).
    for (int i = 0; i < 3000 && scratch.empty(); ++i) {
      for (const auto& entry : fs::directory_iterator(dir_)) {
        if (entry.path().filename().string().rfind("run-spread.", 0) == 0 &&
            fs::exists(entry.path() / "interleaved1.csv.log"))
          scratch = entry.path();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::unsetenv("TMPDIR");
    ASSERT_FALSE(scratch.empty()) << ompscale::test_support::slurp(dir_ / "err");
    EXPECT_FALSE(processes_with(scratch.string()).empty());
    spread.signal(SIGTERM);
    status = spread.wait();
  }
  EXPECT_EQ(status, 130) << ompscale::test_support::slurp(dir_ / "err");
  EXPECT_THAT(processes_with(scratch.string()), ::testing::IsEmpty());
  EXPECT_FALSE(fs::exists(scratch));
}

}  // namespace

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "common/error.h"
#include "regions/run/launcher.h"
#include "tests/support/process.h"

namespace ompscale::regions {
namespace {

namespace fs = std::filesystem;
using test_support::slurp;
using test_support::spit;
using ::testing::HasSubstr;

class LauncherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ompscan-launcher-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  LaunchResult shell(const std::string& script, double timeout = 0, LaunchHooks hooks = {}) {
    Launch launch;
    launch.executable = "/bin/sh";
    launch.argv = {"sh", "-c", script};
    launch.env = {"PATH=/usr/bin:/bin", "FOO=bar"};
    launch.log_path = (dir_ / "log").string();
    launch.timeout_seconds = timeout;
    return launch_and_wait(launch, hooks);
  }

  fs::path dir_;
};

TEST_F(LauncherTest, RecordsTheExitStatus) {
  LaunchResult ok = shell("exit 0");
  EXPECT_EQ(ok.end, LaunchResult::End::kExited);
  EXPECT_EQ(ok.exit_status, 0);
  LaunchResult three = shell("exit 3");
  EXPECT_EQ(three.end, LaunchResult::End::kExited);
  EXPECT_EQ(three.exit_status, 3);
}

TEST_F(LauncherTest, RecordsTheSignalThatEndedIt) {
  const LaunchResult result = shell("kill -SEGV $$");
  EXPECT_EQ(result.end, LaunchResult::End::kSignaled);
  EXPECT_EQ(result.signal, SIGSEGV);
}

TEST_F(LauncherTest, PassesTheEnvironmentAndLogsBothOutputsWithStdinEmpty) {
  const LaunchResult result = shell("test \"$FOO\" = bar && echo out && echo err >&2 && cat", 20);
  EXPECT_EQ(result.end, LaunchResult::End::kExited);
  EXPECT_EQ(result.exit_status, 0);
  EXPECT_EQ(slurp(dir_ / "log"), "out\nerr\n");
}

TEST_F(LauncherTest, WallTimeEndsWhenTheApplicationDoes) {
  const LaunchResult result = shell("sleep 0.3");
  EXPECT_GE(result.wall_ns, 300'000'000);
  // Not rounded up to a polling step or a tick.
  EXPECT_LT(result.wall_ns, 900'000'000);
}

TEST_F(LauncherTest, ReportsCpuTimeOfTheProcessTree) {
  const LaunchResult result =
      shell("/bin/sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done'");
  EXPECT_GT(result.user_ns + result.system_ns, 20'000'000);
  EXPECT_GT(result.max_rss_kib, 0);
}

TEST_F(LauncherTest, TimeoutKillsTheWholeProcessGroup) {
  const fs::path pid_file = dir_ / "background.pid";
  const auto start = std::chrono::steady_clock::now();
  const LaunchResult result =
      shell("sleep 30 & echo $! > " + pid_file.string() + "; wait", /*timeout=*/0.5);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(result.end, LaunchResult::End::kTimedOut);
  EXPECT_EQ(result.signal, SIGKILL);
  EXPECT_GE(result.wall_ns, 500'000'000);

  // The background sleep was in the group: gone (or a zombie waiting for init to reap it).
  const std::string pid = slurp(pid_file).substr(0, slurp(pid_file).find('\n'));
  ASSERT_FALSE(pid.empty());
  bool alive = true;
  for (int i = 0; i < 200 && alive; ++i) {
    const std::string stat = slurp("/proc/" + pid + "/stat");
    alive = !stat.empty() && stat.find(") Z ") == std::string::npos;
    if (alive) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_FALSE(alive) << "background process " << pid << " survived the timeout";
}

TEST_F(LauncherTest, StopRequestKillsTheRun) {
  LaunchHooks hooks;
  hooks.should_stop = [] { return true; };
  const auto start = std::chrono::steady_clock::now();
  const LaunchResult result = shell("sleep 30", 0, hooks);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(result.end, LaunchResult::End::kStopped);
  EXPECT_EQ(result.signal, SIGKILL);
}

TEST_F(LauncherTest, HooksSeeTheChildBeforeItsExecAndTickWhileItRuns) {
  pid_t attached = 0;
  std::string state;
  int ticks = 0;
  LaunchHooks hooks;
  hooks.attach = [&](pid_t pid) {
    attached = pid;
    // Still ompscan's copy, waiting before the exec, and already in its own process group.
    state = slurp("/proc/" + std::to_string(pid) + "/comm");
    EXPECT_EQ(getpgid(pid), pid);
  };
  hooks.tick = [&] { ++ticks; };
  const LaunchResult result = shell("sleep 1.3", 0, hooks);
  EXPECT_EQ(result.exit_status, 0);
  EXPECT_GT(attached, 0);
  EXPECT_NE(state, "sh\n");
  EXPECT_EQ(ticks, 1);
}

TEST_F(LauncherTest, ExecFailureIsReported) {
  const fs::path not_a_program = dir_ / "garbage";
  spit(not_a_program, "\x01\x02\x03 not an executable\n");
  fs::permissions(not_a_program, fs::perms::owner_all);
  Launch launch;
  launch.executable = not_a_program.string();
  launch.argv = {not_a_program.string()};
  const LaunchResult result = launch_and_wait(launch, {});
  EXPECT_EQ(result.end, LaunchResult::End::kExecFailed);
  EXPECT_EQ(result.error, "Exec format error");
}

TEST_F(LauncherTest, UnwritableLogIsAnError) {
  Launch launch;
  launch.executable = "/bin/true";
  launch.argv = {"true"};
  launch.log_path = (dir_ / "missing" / "log").string();
  EXPECT_THROW(launch_and_wait(launch, {}), std::runtime_error);
}

TEST(FindExecutable, ResolvesLikeExecvp) {
  EXPECT_EQ(find_executable("/bin/sh"), "/bin/sh");
  const std::string sh = find_executable("sh");
  EXPECT_TRUE(sh.ends_with("/sh")) << sh;
  EXPECT_EQ(access(sh.c_str(), X_OK), 0);
}

TEST(FindExecutable, MissingOrNotExecutableIsAOneLineUsageError) {
  const auto message = [](const std::string& name) {
    try {
      find_executable(name);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message("/nonexistent/app"), "/nonexistent/app: no such file");
  EXPECT_EQ(message("/tmp"), "/tmp: not an executable file");
  EXPECT_EQ(message("/etc/passwd"), "/etc/passwd: not an executable file");
  EXPECT_EQ(message("no-such-program-ompscan"), "no-such-program-ompscan: not found on PATH");
  EXPECT_EQ(message(""), "the application name is empty");
}

}  // namespace
}  // namespace ompscale::regions

#include "common/child_process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "common/temporary_directory.h"

namespace ompscale {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

ChildOptions shell(const std::string& script) {
  ChildOptions options;
  options.argv = {"/bin/sh", "-c", script};
  options.stdout_to = ChildStream::pipe();
  options.stderr_to = ChildStream::pipe();
  return options;
}

// Whether `pid` is gone or only a zombie, looked at for up to 10 s: a killed orphan is reaped by
// whichever process adopts it, at its own pace.
bool ends_soon(pid_t pid) {
  for (int i = 0; i < 1000; ++i) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return true;
    const std::size_t paren = line.rfind(')');
    if (paren != std::string::npos && line.size() > paren + 2 && line[paren + 2] == 'Z')
      return true;
    std::this_thread::sleep_for(milliseconds(10));
  }
  return false;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(ChildProcess, ExitCodeIsDecoded) {
  const CapturedRun run = run_captured(shell("exit 3"));
  EXPECT_FALSE(run.status.signaled);
  EXPECT_EQ(run.status.code, 3);
  EXPECT_EQ(run.status.shell_code(), 3);
  EXPECT_EQ(run.status.describe(), "exit status 3");
  EXPECT_FALSE(run.timed_out);
}

TEST(ChildProcess, DeathBySignalIsDecoded) {
  const CapturedRun run = run_captured(shell("kill -SEGV $$"));
  EXPECT_TRUE(run.status.signaled);
  EXPECT_EQ(run.status.signal, SIGSEGV);
  EXPECT_EQ(run.status.shell_code(), 128 + SIGSEGV);
  EXPECT_EQ(run.status.describe().rfind("killed by signal 11 (", 0), 0u) << run.status.describe();
}

TEST(ChildProcess, OutputIsCapturedPerStream) {
  const CapturedRun run = run_captured(shell("printf 'to out\\n'; printf 'to err' >&2; exit 0"));
  EXPECT_EQ(run.out, "to out\n");
  EXPECT_EQ(run.err, "to err");
  EXPECT_EQ(run.status.shell_code(), 0);
}

TEST(ChildProcess, LargeOutputOnBothStreamsDoesNotBlock) {
  // More than a pipe holds on each stream: reading one while the other fills would deadlock.
  const CapturedRun run =
      run_captured(shell("head -c 300000 /dev/zero >&2; head -c 200000 /dev/zero"));
  EXPECT_EQ(run.err.size(), 300000u);
  EXPECT_EQ(run.out.size(), 200000u);
}

TEST(ChildProcess, StderrCanGoWhereStdoutGoes) {
  ChildOptions options = shell("echo one; echo two >&2; echo three");
  options.stderr_to = ChildStream::same_as_stdout();
  EXPECT_EQ(run_captured(options).out, "one\ntwo\nthree\n");
}

TEST(ChildProcess, FilesTakeStdinAndOutput) {
  const TemporaryDirectory dir("child-process-test");
  const std::string in = dir.path() + "/in", out = dir.path() + "/out";
  std::ofstream(in) << "input line\n";
  std::ofstream(out) << "old content that must go\n";
  ChildOptions options = shell("cat; echo appended >&2");
  options.stdin_from = ChildStream::file(in);
  options.stdout_to = ChildStream::file(out);
  options.stderr_to = ChildStream::append(out);
  EXPECT_EQ(run_captured(options).status.shell_code(), 0);
  EXPECT_EQ(slurp(out), "input line\nappended\n");
}

TEST(ChildProcess, StdinIsDevNullByDefault) {
  EXPECT_EQ(run_captured(shell("cat; echo end")).out, "end\n");
}

TEST(ChildProcess, EnvironmentIsExactlyTheOneGiven) {
  ChildOptions options;
  options.argv = {"/usr/bin/env"};
  options.environment = std::vector<std::string>{"ONE=1", "TWO=two words"};
  options.stdout_to = ChildStream::pipe();
  EXPECT_EQ(run_captured(options).out, "ONE=1\nTWO=two words\n");
}

TEST(ChildProcess, EnvironmentWithSetsAndUnsets) {
  ASSERT_EQ(setenv("CHILD_PROCESS_TEST_KEEP", "kept", 1), 0);
  ASSERT_EQ(setenv("CHILD_PROCESS_TEST_DROP", "dropped", 1), 0);
  ASSERT_EQ(setenv("CHILD_PROCESS_TEST_SET", "old", 1), 0);
  const std::vector<std::string> env =
      environment_with({"CHILD_PROCESS_TEST_SET=new"}, {"CHILD_PROCESS_TEST_DROP"});
  const auto count = [&](const std::string& entry) {
    return std::count(env.begin(), env.end(), entry);
  };
  EXPECT_EQ(count("CHILD_PROCESS_TEST_KEEP=kept"), 1);
  EXPECT_EQ(count("CHILD_PROCESS_TEST_DROP=dropped"), 0);
  EXPECT_EQ(count("CHILD_PROCESS_TEST_SET=old"), 0);
  EXPECT_EQ(env.back(), "CHILD_PROCESS_TEST_SET=new");
}

TEST(ChildProcess, MissingExecutableIsAClearError) {
  ChildOptions options;
  options.argv = {"/nonexistent/ompscale-program", "--flag"};
  try {
    ChildProcess child(options);
    FAIL() << "started a missing program";
  } catch (const SpawnError& e) {
    EXPECT_EQ(e.error_number(), ENOENT);
    EXPECT_STREQ(e.what(), "cannot start /nonexistent/ompscale-program: No such file or directory");
  }
}

TEST(ChildProcess, UnwritableOutputIsAClearError) {
  ChildOptions options = shell("true");
  options.stdout_to = ChildStream::file("/nonexistent/dir/out");
  try {
    run_captured(options);
    FAIL() << "started with an unwritable output";
  } catch (const SpawnError& e) {
    EXPECT_STREQ(e.what(), "cannot write /nonexistent/dir/out: No such file or directory");
  }
}

TEST(ChildProcess, HeldChildReportsItsExecFailureOnRelease) {
  ChildOptions options;
  options.argv = {"/nonexistent/ompscale-program"};
  options.held = true;
  ChildProcess child(options);
  EXPECT_EQ(child.release(), ENOENT);
  EXPECT_EQ(child.wait().shell_code(), 127);
}

TEST(ChildProcess, HeldChildRunsAfterReleaseInItsOwnGroup) {
  ChildOptions options = shell("echo ran");
  options.held = true;
  options.own_process_group = true;
  ChildProcess child(options);
  EXPECT_EQ(getpgid(child.pid()), child.pid());
  EXPECT_FALSE(child.try_wait().has_value());  // held: it cannot have ended
  EXPECT_EQ(child.release(), 0);
  EXPECT_EQ(child.wait().shell_code(), 0);
  char buffer[16] = {};
  EXPECT_EQ(read(child.stdout_fd(), buffer, sizeof buffer), 4);
  EXPECT_STREQ(buffer, "ran\n");
}

TEST(ChildProcess, WithoutOwnGroupTheChildStaysInOurs) {
  ChildOptions options = shell("exit 0");
  options.held = true;
  ChildProcess child(options);
  EXPECT_EQ(getpgid(child.pid()), getpgrp());
  child.release();
  child.wait();
}

TEST(ChildProcess, TimeoutKillsTheWholeProcessGroup) {
  // The shell starts a grandchild (its output elsewhere, so the run can end without it) and
  // waits for it: only killing the group ends the grandchild too.
  ChildOptions options = shell("sleep 300 >/dev/null 2>&1 & echo $!; wait");
  options.own_process_group = true;
  const CapturedRun run = run_captured(options, milliseconds(300));
  EXPECT_TRUE(run.timed_out);
  EXPECT_TRUE(run.status.signaled);
  EXPECT_EQ(run.status.signal, SIGKILL);
  const pid_t grandchild = std::stoi(run.out);
  EXPECT_TRUE(ends_soon(grandchild));
  kill(grandchild, SIGKILL);  // when the test failed
}

// The pid of a `sleep 300` started (with `ends_with_parent` as given) by a process of ours
// that is then killed with SIGKILL, so it can clean nothing up itself.
pid_t orphan_of_a_killed_parent(bool ends_with_parent) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  const pid_t parent = fork();
  if (parent == 0) {
    close(fds[0]);
    ChildOptions options;
    options.argv = {"/bin/sleep", "300"};
    options.ends_with_parent = ends_with_parent;
    ChildProcess child(options);
    const pid_t pid = child.pid();
    (void)!write(fds[1], &pid, sizeof pid);
    pause();
    _exit(0);
  }
  close(fds[1]);
  pid_t orphan = -1;
  if (read(fds[0], &orphan, sizeof orphan) != static_cast<ssize_t>(sizeof orphan)) orphan = -1;
  close(fds[0]);
  kill(parent, SIGKILL);
  waitpid(parent, nullptr, 0);
  return orphan;
}

TEST(ChildProcess, EndsWithItsParentWhenAsked) {
  const pid_t ended = orphan_of_a_killed_parent(true);
  ASSERT_GT(ended, 0);
  EXPECT_TRUE(ends_soon(ended));
  kill(ended, SIGKILL);  // when the test failed

  // Without the option the orphan runs on (the check above can tell the two apart).
  const pid_t survivor = orphan_of_a_killed_parent(false);
  ASSERT_GT(survivor, 0);
  std::this_thread::sleep_for(milliseconds(200));
  EXPECT_EQ(kill(survivor, 0), 0);
  kill(survivor, SIGKILL);
}

TEST(ChildProcess, ChildEndingBeforeTheLimitIsNoTimeout) {
  const CapturedRun run = run_captured(shell("echo quick"), seconds(60));
  EXPECT_FALSE(run.timed_out);
  EXPECT_EQ(run.out, "quick\n");
}

TEST(ChildProcess, WaitForReturnsNothingWhileItRuns) {
  ChildOptions options;
  options.argv = {"/bin/sleep", "300"};
  ChildProcess child(options);
  EXPECT_FALSE(child.wait_for(milliseconds(20)).has_value());
  child.signal(SIGTERM);
  const std::optional<ExitStatus> status = child.wait_for(seconds(60));
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->signal, SIGTERM);
  EXPECT_EQ(child.try_wait()->signal, SIGTERM);  // asked again: the same answer
}

TEST(ChildProcess, DestructorKillsAndReapsARunningChild) {
  pid_t pid = 0;
  {
    ChildOptions options;
    options.argv = {"/bin/sleep", "300"};
    ChildProcess child(options);
    pid = child.pid();
  }
  errno = 0;
  EXPECT_EQ(kill(pid, 0), -1);  // reaped: not even a zombie is left
  EXPECT_EQ(errno, ESRCH);
}

TEST(ChildProcess, FeedStdinSurvivesAChildThatDoesNotRead) {
  ChildOptions options = shell("cat");
  options.stdin_from = ChildStream::pipe();
  ChildProcess reader(options);
  reader.feed_stdin("fed text");
  std::string out;
  char buffer[64];
  for (ssize_t n; (n = read(reader.stdout_fd(), buffer, sizeof buffer)) > 0;)
    out.append(buffer, static_cast<std::size_t>(n));
  EXPECT_EQ(out, "fed text");
  EXPECT_EQ(reader.wait().shell_code(), 0);

  ChildOptions quits = shell("exec 0<&-; exit 4");
  quits.stdin_from = ChildStream::pipe();
  ChildProcess child(quits);
  child.feed_stdin(std::string(1 << 20, 'x'));  // more than a pipe holds: SIGPIPE would end us
  EXPECT_EQ(child.wait().shell_code(), 4);
}

TEST(ChildProcess, ResourceUseIsReported) {
  const CapturedRun run = run_captured(shell("i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"));
  EXPECT_GT(run.status.usage.max_rss_kib, 0);
  EXPECT_GT(run.status.usage.user_ns + run.status.usage.system_ns, 0);
}

}  // namespace
}  // namespace ompscale

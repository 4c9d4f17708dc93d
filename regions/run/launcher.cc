#include "regions/run/launcher.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "common/error.h"
#include "common/text.h"

namespace ompscale::regions {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kTickInterval = std::chrono::seconds(1);

std::int64_t to_ns(const timeval& t) {
  return static_cast<std::int64_t>(t.tv_sec) * 1000000000 +
         static_cast<std::int64_t>(t.tv_usec) * 1000;
}

// Closes what it holds when the scope ends, whichever way.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  void reset(int fd = -1) {
    if (fd_ >= 0) close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error(what + ": " + std::strerror(errno));
}

// Blocks until the child's exec succeeded (the close-on-exec pipe reads EOF) or failed (it
// wrote its errno); returns that errno, 0 on success.
int exec_result(int fd) {
  int error = 0;
  ssize_t n;
  while ((n = read(fd, &error, sizeof error)) < 0 && errno == EINTR) {
  }
  return n == static_cast<ssize_t>(sizeof error) ? error : 0;
}

}  // namespace

std::string find_executable(const std::string& name) {
  namespace fs = std::filesystem;
  if (name.empty()) throw UsageError("the application name is empty");
  const auto usable = [](const std::string& path) {
    std::error_code error;
    return fs::is_regular_file(path, error) && access(path.c_str(), X_OK) == 0;
  };
  if (name.find('/') != std::string::npos) {
    std::error_code error;
    if (!fs::exists(name, error)) throw UsageError(name + ": no such file");
    if (!usable(name)) throw UsageError(name + ": not an executable file");
    return name;
  }
  const char* path = std::getenv("PATH");
  for (const std::string& directory : split(path != nullptr ? path : "/usr/bin:/bin", ':')) {
    const std::string candidate = (directory.empty() ? "." : directory) + "/" + name;
    if (usable(candidate)) return candidate;
  }
  throw UsageError(name + ": not found on PATH");
}

LaunchResult launch_and_wait(const Launch& launch, const LaunchHooks& hooks) {
  // Everything the child needs is prepared here: between fork and exec it may only make
  // async-signal-safe calls.
  std::vector<std::string> arg_storage = launch.argv;
  std::vector<char*> argv;
  for (std::string& a : arg_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_storage = launch.env;
  std::vector<char*> envp;
  for (std::string& e : env_storage) envp.push_back(e.data());
  envp.push_back(nullptr);

  // /dev/null is opened without O_CREAT: where it is missing, a regular file must not appear.
  Fd log_fd(launch.log_path.empty()
                ? open("/dev/null", O_WRONLY | O_CLOEXEC)
                : open(launch.log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (log_fd.get() < 0)
    fail("cannot write " + (launch.log_path.empty() ? "/dev/null" : launch.log_path));
  Fd null_fd(open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (null_fd.get() < 0) fail("cannot open /dev/null");
  int go[2];
  int exec_error[2];
  if (pipe2(go, O_CLOEXEC) != 0) fail("cannot create a pipe");
  Fd go_read(go[0]);
  Fd go_write(go[1]);
  if (pipe2(exec_error, O_CLOEXEC) != 0) fail("cannot create a pipe");
  Fd error_read(exec_error[0]);
  Fd error_write(exec_error[1]);

  LaunchResult result;
  const Clock::time_point start = Clock::now();
  const pid_t pid = fork();
  if (pid < 0) fail("cannot fork");
  if (pid == 0) {
    // Own process group: a Ctrl-C reaches ompscan only, and a kill reaches every process of the
    // run.
    setpgid(0, 0);
    dup2(null_fd.get(), STDIN_FILENO);
    dup2(log_fd.get(), STDOUT_FILENO);
    dup2(log_fd.get(), STDERR_FILENO);
    close(go[1]);
    char byte;
    while (read(go[0], &byte, 1) < 0 && errno == EINTR) {
    }
    execve(launch.executable.c_str(), argv.data(), envp.data());
    const int error = errno;
    (void)!write(exec_error[1], &error, sizeof error);
    _exit(127);
  }
  setpgid(pid, pid);  // also here, so the group exists whichever process runs first
  go_read.reset();
  error_write.reset();
  log_fd.reset();
  null_fd.reset();
  if (hooks.attach) hooks.attach(pid);
  go_write.reset();  // EOF releases the child into its exec

  if (const int error = exec_result(error_read.get()); error != 0) {
    result.end = LaunchResult::End::exec_failed;
    result.error = std::strerror(error);
  }

  // A pidfd turns "the child exited" into a pollable event, so the wait ends when the child does
  // and not at the next polling step; without one (kernels before 5.3) poll in 1 ms steps.
  Fd pidfd(static_cast<int>(syscall(SYS_pidfd_open, pid, 0)));
  const bool limited = launch.timeout_seconds > 0;
  const Clock::time_point deadline =
      start + std::chrono::duration_cast<Clock::duration>(
                  std::chrono::duration<double>(limited ? launch.timeout_seconds : 0));
  Clock::time_point next_tick = start + kTickInterval;
  bool killed = false;
  int status = 0;
  rusage usage{};
  while (true) {
    if (pidfd.get() < 0) {
      const pid_t done = wait4(pid, &status, WNOHANG, &usage);
      if (done == pid) break;
    }
    const Clock::time_point now = Clock::now();
    if (!killed && hooks.should_stop && hooks.should_stop()) {
      kill(-pid, SIGKILL);
      killed = true;
      result.end = LaunchResult::End::stopped;
    }
    if (!killed && limited && now >= deadline) {
      kill(-pid, SIGKILL);
      killed = true;
      result.end = LaunchResult::End::timed_out;
    }
    if (now >= next_tick) {
      if (hooks.tick) hooks.tick();
      next_tick += kTickInterval;
    }
    Clock::time_point wake = next_tick;
    if (limited && !killed) wake = std::min(wake, deadline);
    const auto wait_ms = std::chrono::ceil<std::chrono::milliseconds>(wake - Clock::now()).count();
    const int timeout_ms = static_cast<int>(std::clamp<std::int64_t>(wait_ms, 0, 1000));
    if (pidfd.get() < 0) {
      poll(nullptr, 0, std::min(timeout_ms, 1));
      continue;
    }
    pollfd fd{pidfd.get(), POLLIN, 0};
    if (poll(&fd, 1, timeout_ms) > 0) {
      while (wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
      }
      break;
    }
  }
  result.wall_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
  result.user_ns = to_ns(usage.ru_utime);
  result.system_ns = to_ns(usage.ru_stime);
  result.max_rss_kib = usage.ru_maxrss;
  result.minor_faults = usage.ru_minflt;
  result.involuntary_switches = usage.ru_nivcsw;

  if (result.end == LaunchResult::End::exec_failed) return result;
  if (WIFEXITED(status)) {
    // Exited by itself, even when a kill came too late to matter.
    result.end = LaunchResult::End::exited;
    result.exit_status = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
    if (!killed) result.end = LaunchResult::End::signaled;
  }
  return result;
}

}  // namespace ompscale::regions

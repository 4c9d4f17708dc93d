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

namespace {

// The child's argv and environment as the C arrays execve takes, prepared before fork: between
// fork and exec the child may only make async-signal-safe calls. Not copyable: the arrays point
// into the strings.
struct ExecArguments {
  explicit ExecArguments(const Launch& launch) : arg_storage(launch.argv), env_storage(launch.env) {
    for (std::string& a : arg_storage) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (std::string& e : env_storage) envp.push_back(e.data());
    envp.push_back(nullptr);
  }
  ExecArguments(const ExecArguments&) = delete;
  ExecArguments& operator=(const ExecArguments&) = delete;

  std::vector<std::string> arg_storage;
  std::vector<std::string> env_storage;
  std::vector<char*> argv;
  std::vector<char*> envp;
};

// The child's standard streams, the pipe that holds it before its exec (`go`: the parent closes
// its end to release it), and the close-on-exec pipe that reports a failed exec.
struct ChildFds {
  Fd log, null, go_read, go_write, error_read, error_write;
};

void open_pipe(Fd& read_end, Fd& write_end) {
  int ends[2];
  if (pipe2(ends, O_CLOEXEC) != 0) fail("cannot create a pipe");
  read_end.reset(ends[0]);
  write_end.reset(ends[1]);
}

void open_child_fds(const Launch& launch, ChildFds& fds) {
  // /dev/null is opened without O_CREAT: where it is missing, a regular file must not appear.
  fds.log.reset(launch.log_path.empty() ? open("/dev/null", O_WRONLY | O_CLOEXEC)
                                        : open(launch.log_path.c_str(),
                                               O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (fds.log.get() < 0)
    fail("cannot write " + (launch.log_path.empty() ? "/dev/null" : launch.log_path));
  fds.null.reset(open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (fds.null.get() < 0) fail("cannot open /dev/null");
  open_pipe(fds.go_read, fds.go_write);
  open_pipe(fds.error_read, fds.error_write);
}

// The child, after fork: async-signal-safe calls only.
[[noreturn]] void exec_child(const Launch& launch, ExecArguments& args, const ChildFds& fds) {
  // Own process group: a Ctrl-C reaches ompscan only, and a kill reaches every process of the
  // run.
  setpgid(0, 0);
  dup2(fds.null.get(), STDIN_FILENO);
  dup2(fds.log.get(), STDOUT_FILENO);
  dup2(fds.log.get(), STDERR_FILENO);
  close(fds.go_write.get());
  char byte;
  while (read(fds.go_read.get(), &byte, 1) < 0 && errno == EINTR) {
  }
  execve(launch.executable.c_str(), args.argv.data(), args.envp.data());
  const int error = errno;
  (void)!write(fds.error_write.get(), &error, sizeof error);
  _exit(127);
}

// How the wait for the child ended.
struct Waited {
  int status = 0;
  rusage usage{};
  bool killed = false;
};

// Waits for the child: kills its process group when `should_stop` says so or at the timeout,
// calls `tick` every second meanwhile.
Waited wait_for_child(pid_t pid, const Launch& launch, const LaunchHooks& hooks,
                      Clock::time_point start, LaunchResult& result) {
  // A pidfd turns "the child exited" into a pollable event, so the wait ends when the child does
  // and not at the next polling step; without one (kernels before 5.3) poll in 1 ms steps.
  Fd pidfd(static_cast<int>(syscall(SYS_pidfd_open, pid, 0)));
  const bool limited = launch.timeout_seconds > 0;
  const Clock::time_point deadline =
      start + std::chrono::duration_cast<Clock::duration>(
                  std::chrono::duration<double>(limited ? launch.timeout_seconds : 0));
  Clock::time_point next_tick = start + kTickInterval;
  Waited w;
  while (true) {
    if (pidfd.get() < 0) {
      const pid_t done = wait4(pid, &w.status, WNOHANG, &w.usage);
      if (done == pid) break;
    }
    const Clock::time_point now = Clock::now();
    if (!w.killed && hooks.should_stop && hooks.should_stop()) {
      kill(-pid, SIGKILL);
      w.killed = true;
      result.end = LaunchResult::End::kStopped;
    }
    if (!w.killed && limited && now >= deadline) {
      kill(-pid, SIGKILL);
      w.killed = true;
      result.end = LaunchResult::End::kTimedOut;
    }
    if (now >= next_tick) {
      if (hooks.tick) hooks.tick();
      next_tick += kTickInterval;
    }
    Clock::time_point wake = next_tick;
    if (limited && !w.killed) wake = std::min(wake, deadline);
    const auto wait_ms = std::chrono::ceil<std::chrono::milliseconds>(wake - Clock::now()).count();
    const int timeout_ms = static_cast<int>(std::clamp<std::int64_t>(wait_ms, 0, 1000));
    if (pidfd.get() < 0) {
      poll(nullptr, 0, std::min(timeout_ms, 1));
      continue;
    }
    pollfd fd{pidfd.get(), POLLIN, 0};
    if (poll(&fd, 1, timeout_ms) > 0) {
      while (wait4(pid, &w.status, 0, &w.usage) < 0 && errno == EINTR) {
      }
      break;
    }
  }
  return w;
}

// The child's resource use and how it ended, into `result`.
void record_end(const Waited& w, Clock::time_point start, LaunchResult& result) {
  result.wall_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
  result.user_ns = to_ns(w.usage.ru_utime);
  result.system_ns = to_ns(w.usage.ru_stime);
  result.max_rss_kib = w.usage.ru_maxrss;
  result.minor_faults = w.usage.ru_minflt;
  result.involuntary_switches = w.usage.ru_nivcsw;

  if (result.end == LaunchResult::End::kExecFailed) return;
  if (WIFEXITED(w.status)) {
    // Exited by itself, even when a kill came too late to matter.
    result.end = LaunchResult::End::kExited;
    result.exit_status = WEXITSTATUS(w.status);
  } else if (WIFSIGNALED(w.status)) {
    result.signal = WTERMSIG(w.status);
    if (!w.killed) result.end = LaunchResult::End::kSignaled;
  }
}

}  // namespace

LaunchResult launch_and_wait(const Launch& launch, const LaunchHooks& hooks) {
  ExecArguments args(launch);
  ChildFds fds;
  open_child_fds(launch, fds);

  LaunchResult result;
  const Clock::time_point start = Clock::now();
  const pid_t pid = fork();
  if (pid < 0) fail("cannot fork");
  if (pid == 0) exec_child(launch, args, fds);
  setpgid(pid, pid);  // also here, so the group exists whichever process runs first
  fds.go_read.reset();
  fds.error_write.reset();
  fds.log.reset();
  fds.null.reset();
  if (hooks.attach) hooks.attach(pid);
  fds.go_write.reset();  // EOF releases the child into its exec

  if (const int error = exec_result(fds.error_read.get()); error != 0) {
    result.end = LaunchResult::End::kExecFailed;
    result.error = std::strerror(error);
  }
  record_end(wait_for_child(pid, launch, hooks, start, result), start, result);
  return result;
}

}  // namespace ompscale::regions

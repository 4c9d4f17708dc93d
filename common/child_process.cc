#include "common/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <thread>

extern char** environ;

namespace ompscale {

namespace {

using Clock = std::chrono::steady_clock;

void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

[[noreturn]] void fail(const std::string& what, int error) {
  throw SpawnError(what + ": " + std::strerror(error), error);
}

std::int64_t to_ns(const timeval& t) {
  return static_cast<std::int64_t>(t.tv_sec) * 1000000000 +
         static_cast<std::int64_t>(t.tv_usec) * 1000;
}

ExitStatus decode(int status, const rusage& usage) {
  ExitStatus result;
  if (WIFSIGNALED(status)) {
    result.signaled = true;
    result.signal = WTERMSIG(status);
  } else {
    result.code = WEXITSTATUS(status);
  }
  result.usage = {to_ns(usage.ru_utime), to_ns(usage.ru_stime), usage.ru_maxrss, usage.ru_minflt,
                  usage.ru_nivcsw};
  return result;
}

// The child's side of one stream (-1: inherited) and, for a pipe, this process's side; both
// close-on-exec, so no other child inherits them.
struct StreamFds {
  int child = -1;
  int parent = -1;
};

void open_pipe(int& read_end, int& write_end) {
  int ends[2];
  if (pipe2(ends, O_CLOEXEC) != 0) fail("cannot create a pipe", errno);
  read_end = ends[0];
  write_end = ends[1];
}

StreamFds open_stream(const ChildStream& stream, bool input) {
  StreamFds fds;
  const char* verb = input ? "cannot read " : "cannot write ";
  switch (stream.kind) {
    case ChildStream::Kind::kInherit:
    case ChildStream::Kind::kSameAsStdout:
      return fds;
    case ChildStream::Kind::kNull:
      // Without O_CREAT: where /dev/null is missing, a regular file must not appear.
      fds.child = open("/dev/null", (input ? O_RDONLY : O_WRONLY) | O_CLOEXEC);
      if (fds.child < 0) fail(std::string(verb) + "/dev/null", errno);
      return fds;
    case ChildStream::Kind::kFile:
    case ChildStream::Kind::kAppend: {
      const int mode = input ? O_RDONLY
                             : O_WRONLY | O_CREAT |
                                   (stream.kind == ChildStream::Kind::kAppend ? O_APPEND : O_TRUNC);
      fds.child = open(stream.path.c_str(), mode | O_CLOEXEC, 0644);
      if (fds.child < 0) fail(verb + stream.path, errno);
      return fds;
    }
    case ChildStream::Kind::kPipe:
      if (input) {
        open_pipe(fds.child, fds.parent);
      } else {
        open_pipe(fds.parent, fds.child);
      }
      return fds;
  }
  return fds;
}

// Everything the child needs between fork and exec, prepared before the fork: the child may only
// make async-signal-safe calls there. Not copyable: the arrays point into the strings.
struct ExecPlan {
  explicit ExecPlan(const ChildOptions& options)
      : executable(options.executable.empty() ? options.argv.front() : options.executable),
        arg_storage(options.argv),
        env_storage(options.environment.value_or(std::vector<std::string>{})),
        own_group(options.own_process_group),
        ends_with_parent(options.ends_with_parent),
        parent(getpid()) {
    for (std::string& a : arg_storage) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (std::string& e : env_storage) envp.push_back(e.data());
    envp.push_back(nullptr);
    if (!options.environment) envp_used = environ;
  }
  ExecPlan(const ExecPlan&) = delete;
  ExecPlan& operator=(const ExecPlan&) = delete;
  char** environment() { return envp_used != nullptr ? envp_used : envp.data(); }

  std::string executable;
  std::vector<std::string> arg_storage;
  std::vector<std::string> env_storage;
  std::vector<char*> argv;
  std::vector<char*> envp;
  char** envp_used = nullptr;
  bool own_group;
  bool ends_with_parent;
  pid_t parent;
  std::array<StreamFds, 3> streams;
  bool stderr_as_stdout = false;
  int release_read = -1, release_write = -1;
  int error_read = -1, error_write = -1;
};

// `from` as the child's descriptor `to`; dup2 onto itself would keep close-on-exec.
void install(int from, int to) {
  if (from < 0) return;
  if (from == to) {
    fcntl(to, F_SETFD, 0);
  } else {
    dup2(from, to);
  }
}

// The child, after fork: async-signal-safe calls only.
[[noreturn]] void exec_child(ExecPlan& plan) {
  if (plan.own_group) setpgid(0, 0);
  if (plan.ends_with_parent) {
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != plan.parent) _exit(127);  // the parent ended before the line above
  }
  for (int fd = 0; fd < 3; ++fd) install(plan.streams[static_cast<std::size_t>(fd)].child, fd);
  if (plan.stderr_as_stdout) dup2(STDOUT_FILENO, STDERR_FILENO);
  if (plan.release_read >= 0) {
    close(plan.release_write);
    char byte;
    while (read(plan.release_read, &byte, 1) < 0 && errno == EINTR) {
    }
  }
  execve(plan.executable.c_str(), plan.argv.data(), plan.environment());
  const int error = errno;
  (void)!write(plan.error_write, &error, sizeof error);
  _exit(127);
}

void close_all(ExecPlan& plan, bool parent_ends) {
  for (StreamFds& s : plan.streams) {
    close_fd(s.child);
    if (parent_ends) close_fd(s.parent);
  }
  close_fd(plan.release_read);
  close_fd(plan.error_write);
  if (parent_ends) {
    close_fd(plan.release_write);
    close_fd(plan.error_read);
  }
}

void open_plan_fds(const ChildOptions& options, ExecPlan& plan) {
  plan.streams[0] = open_stream(options.stdin_from, true);
  plan.streams[1] = open_stream(options.stdout_to, false);
  plan.streams[2] = open_stream(options.stderr_to, false);
  plan.stderr_as_stdout = options.stderr_to.kind == ChildStream::Kind::kSameAsStdout;
  if (options.held) open_pipe(plan.release_read, plan.release_write);
  open_pipe(plan.error_read, plan.error_write);
}

// Blocks until the child's exec succeeded (the close-on-exec pipe reads EOF) or failed (it wrote
// its errno); returns that errno, 0 on success.
int exec_result(int fd) {
  int error = 0;
  ssize_t n;
  while ((n = read(fd, &error, sizeof error)) < 0 && errno == EINTR) {
  }
  return n == static_cast<ssize_t>(sizeof error) ? error : 0;
}

}  // namespace

std::string ExitStatus::describe() const {
  if (!signaled) return "exit status " + std::to_string(code);
  return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
}

ChildProcess::ChildProcess(const ChildOptions& options) : own_group_(options.own_process_group) {
  if (options.argv.empty()) throw SpawnError("cannot start a child without arguments", EINVAL);
  ExecPlan plan(options);
  try {
    open_plan_fds(options, plan);
  } catch (...) {
    close_all(plan, true);
    throw;
  }
  pid_ = fork();
  if (pid_ < 0) {
    const int error = errno;
    close_all(plan, true);
    fail("cannot start " + plan.executable, error);
  }
  if (pid_ == 0) exec_child(plan);
  // Also here, so the group exists whichever process runs first.
  if (own_group_) setpgid(pid_, pid_);
  close_all(plan, false);
  stdin_fd_ = plan.streams[0].parent;
  stdout_fd_ = plan.streams[1].parent;
  stderr_fd_ = plan.streams[2].parent;
  release_fd_ = plan.release_write;
  exec_error_fd_ = plan.error_read;
  pidfd_ = static_cast<int>(syscall(SYS_pidfd_open, pid_, 0));
  if (options.held) return;
  if (const int error = release(); error != 0) {
    wait();
    close_fd(stdin_fd_);
    close_fd(stdout_fd_);
    close_fd(stderr_fd_);
    fail("cannot start " + plan.executable, error);
  }
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !ended_) {
    signal_group(SIGKILL);
    wait();
  }
  for (int* fd : {&stdin_fd_, &stdout_fd_, &stderr_fd_, &release_fd_, &exec_error_fd_, &pidfd_})
    close_fd(*fd);
}

int ChildProcess::release() {
  if (exec_error_fd_ < 0) return 0;
  close_fd(release_fd_);
  const int error = exec_result(exec_error_fd_);
  close_fd(exec_error_fd_);
  return error;
}

void ChildProcess::close_stdin() {
  close_fd(stdin_fd_);
}

void ChildProcess::feed_stdin(const std::string& text) {
  struct sigaction ignore {};
  struct sigaction previous {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &previous);
  std::size_t done = 0;
  while (stdin_fd_ >= 0 && done < text.size()) {
    const ssize_t n = write(stdin_fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;  // the child closed its stdin or ended
    done += static_cast<std::size_t>(n);
  }
  close_stdin();
  sigaction(SIGPIPE, &previous, nullptr);
}

void ChildProcess::signal(int number) {
  if (pid_ > 0 && !ended_) kill(pid_, number);
}

void ChildProcess::signal_group(int number) {
  if (pid_ > 0 && !ended_) kill(own_group_ ? -pid_ : pid_, number);
}

std::optional<ExitStatus> ChildProcess::reap(bool block) {
  if (ended_) return ended_;
  int status = 0;
  rusage usage{};
  pid_t done;
  while ((done = wait4(pid_, &status, block ? 0 : WNOHANG, &usage)) < 0 && errno == EINTR) {
  }
  if (done != pid_) return std::nullopt;
  ended_ = decode(status, usage);
  close_fd(pidfd_);
  return ended_;
}

std::optional<ExitStatus> ChildProcess::try_wait() {
  return reap(false);
}

ExitStatus ChildProcess::wait() {
  return *reap(true);
}

std::optional<ExitStatus> ChildProcess::wait_for(std::chrono::milliseconds limit) {
  const Clock::time_point deadline = Clock::now() + limit;
  while (true) {
    if (const auto status = reap(false)) return status;
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return std::nullopt;
    if (pidfd_ < 0) {
      // Without a pidfd (kernels before 5.3) look again in 1 ms steps.
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      continue;
    }
    // A pidfd turns "the child ended" into a pollable event: the wait ends when the child does.
    pollfd fd{pidfd_, POLLIN, 0};
    poll(&fd, 1, static_cast<int>(std::min<std::int64_t>(left.count(), 1 << 30)));
  }
}

namespace {

// Reads what is there on each open pipe; forgets one at its end (its owner closes it).
void drain(std::array<int*, 2> fds, std::array<std::string*, 2> into, int timeout_ms) {
  std::array<pollfd, 2> polled{};
  nfds_t count = 0;
  std::array<std::size_t, 2> which{};
  for (std::size_t i = 0; i < 2; ++i) {
    if (*fds[i] < 0) continue;
    polled[count] = {*fds[i], POLLIN, 0};
    which[count++] = i;
  }
  if (poll(polled.data(), count, timeout_ms) <= 0) return;
  char buffer[65536];
  for (nfds_t k = 0; k < count; ++k) {
    if (polled[k].revents == 0) continue;
    const std::size_t i = which[k];
    const ssize_t n = read(*fds[i], buffer, sizeof buffer);
    if (n > 0) into[i]->append(buffer, static_cast<std::size_t>(n));
    if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) *fds[i] = -1;
  }
}

}  // namespace

CapturedRun run_captured(const ChildOptions& options, std::chrono::milliseconds timeout) {
  ChildProcess child(options);
  child.close_stdin();
  CapturedRun run;
  const bool limited = timeout.count() > 0;
  const Clock::time_point deadline = Clock::now() + timeout;
  const auto left_ms = [&] {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    return std::max<std::int64_t>(left.count(), 0);
  };
  const auto kill_at_limit = [&] {
    if (run.timed_out || !limited || left_ms() > 0) return;
    child.signal_group(SIGKILL);
    run.timed_out = true;
  };
  int out = child.stdout_fd(), err = child.stderr_fd();
  while (out >= 0 || err >= 0) {
    drain({&out, &err}, {&run.out, &run.err},
          limited && !run.timed_out ? static_cast<int>(std::min<std::int64_t>(left_ms(), 1 << 30))
                                    : -1);
    kill_at_limit();
  }
  if (limited && !run.timed_out && !child.wait_for(std::chrono::milliseconds(left_ms()))) {
    child.signal_group(SIGKILL);
    run.timed_out = true;
  }
  run.status = child.wait();
  return run;
}

std::vector<std::string> environment_with(const std::vector<std::string>& set,
                                          const std::vector<std::string>& unset) {
  const auto name_of = [](const std::string& entry) { return entry.substr(0, entry.find('=')); };
  std::vector<std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string item = *entry;
    const std::string name = name_of(item);
    const bool dropped = std::find(unset.begin(), unset.end(), name) != unset.end() ||
                         std::any_of(set.begin(), set.end(),
                                     [&](const std::string& s) { return name_of(s) == name; });
    if (!dropped) env.push_back(item);
  }
  env.insert(env.end(), set.begin(), set.end());
  return env;
}

}  // namespace ompscale

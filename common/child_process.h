#pragma once
// Child processes, the one way every ompscale program starts one: ompscan run's launcher of the
// measured application, ompbench's workers, ompdash nightly's tools, the benchmarks and the
// tests. A child is fork + execve of a program named by its path (no shell, no PATH search: the
// callers resolve names first), with argv and environment as given, each standard stream
// inherited, /dev/null, a file or a pipe, optionally in its own process group and optionally
// held before its exec. How it ended is one `ExitStatus`.
//
//   ChildOptions options;
//   options.argv = {"/usr/bin/env", "true"};
//   options.stdout_to = ChildStream::pipe();
//   const CapturedRun run = run_captured(options, std::chrono::seconds(10));
//   if (run.timed_out || run.status.shell_code() != 0) ...

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ompscale {

/// Where one of the child's standard streams comes from (stdin) or goes to (stdout, stderr).
struct ChildStream {
  enum class Kind {
    kInherit,       // this process's own stream
    kNull,          // /dev/null
    kFile,          // stdin: read from `path`; stdout/stderr: `path`, created or truncated
    kAppend,        // stdout/stderr: appended to `path`, created when missing
    kPipe,          // a pipe to this process: ChildProcess::stdin_fd()/stdout_fd()/stderr_fd()
    kSameAsStdout,  // stderr only: wherever stdout goes
  };
  Kind kind = Kind::kInherit;
  std::string path;  // kFile and kAppend

  static ChildStream inherit() { return {}; }
  static ChildStream null() { return {Kind::kNull, {}}; }
  static ChildStream file(std::string path) { return {Kind::kFile, std::move(path)}; }
  static ChildStream append(std::string path) { return {Kind::kAppend, std::move(path)}; }
  static ChildStream pipe() { return {Kind::kPipe, {}}; }
  static ChildStream same_as_stdout() { return {Kind::kSameAsStdout, {}}; }
};

struct ChildOptions {
  /// The arguments; argv[0] is what the program sees as its name. Must not be empty.
  std::vector<std::string> argv;

  /// The file to execute; "" = argv[0]. A path, used as it is.
  std::string executable;

  /// The complete environment, "NAME=VALUE" each; nothing = this process's own.
  /// `environment_with` builds one from this process's own.
  std::optional<std::vector<std::string>> environment;

  ChildStream stdin_from = ChildStream::null();
  ChildStream stdout_to = ChildStream::inherit();
  ChildStream stderr_to = ChildStream::inherit();

  /// The child leads a process group of its own: a Ctrl-C at the terminal does not reach it,
  /// and signal_group() and the timeouts reach everything it started. Otherwise it stays in
  /// this process's group.
  bool own_process_group = false;

  /// The child gets SIGTERM when this process ends, however it ends (PR_SET_PDEATHSIG): a
  /// driver killed with SIGTERM or SIGKILL leaves no program of its running on. The signal
  /// comes when the thread that started the child ends, so start such children from a thread
  /// that lives as long as they should.
  bool ends_with_parent = false;

  /// The child waits before its exec until release() (for what must be attached to the process
  /// before it runs anything, such as perf counters).
  bool held = false;
};

/// How much the child and the descendants it waited for used (getrusage's fields).
struct ResourceUse {
  std::int64_t user_ns = 0;
  std::int64_t system_ns = 0;
  std::int64_t max_rss_kib = 0;
  std::int64_t minor_faults = 0;
  std::int64_t involuntary_switches = 0;
};

/// How a child ended: it exited with `code`, or a signal ended it.
struct ExitStatus {
  bool signaled = false;
  int code = 0;    // !signaled: the exit status
  int signal = 0;  // signaled: the signal that ended it
  ResourceUse usage;

  /// The status a shell would report: `code`, or 128 + `signal`.
  int shell_code() const { return signaled ? 128 + signal : code; }
  /// "exit status 2", "killed by signal 11 (Segmentation fault)".
  std::string describe() const;
};

/// A child could not be started: a pipe, a file or fork failed (this process's side), or the
/// exec failed. The message names the program or file and the cause; `error_number` is errno.
class SpawnError : public std::runtime_error {
 public:
  SpawnError(const std::string& message, int error_number)
      : std::runtime_error(message), error_number_(error_number) {}
  int error_number() const { return error_number_; }

 private:
  int error_number_;
};

/// A started child. Destroying one that still runs kills it (its group, when it leads one) with
/// SIGKILL and reaps it, so no child outlives its owner unwaited.
class ChildProcess {
 public:
  /// Starts the child. Unless held, returns once the exec succeeded; throws SpawnError (the
  /// child reaped) when it failed, or when a stream or the process cannot be set up.
  explicit ChildProcess(const ChildOptions& options);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }

  /// Lets a held child exec; returns 0 when the exec succeeded, else its errno (the child then
  /// exits with status 127: wait for it as usual). Does nothing and returns 0 when not held.
  int release();

  /// This process's ends of the pipes (-1 when that stream is no pipe). The caller may read and
  /// write them; close_stdin() closes the child's stdin.
  int stdin_fd() const { return stdin_fd_; }
  int stdout_fd() const { return stdout_fd_; }
  int stderr_fd() const { return stderr_fd_; }
  void close_stdin();

  /// Writes all of `text` to the stdin pipe, then closes it. A child that exits before reading
  /// all of it does not end this process with SIGPIPE: the rest is dropped, and its exit status
  /// tells the caller what happened.
  void feed_stdin(const std::string& text);

  /// Sends `signal` to the child only; signal_group() to its whole process group (only with
  /// own_process_group; otherwise to the child only). Nothing once it has been waited for.
  void signal(int signal);
  void signal_group(int signal);

  /// How it ended once it has; nothing while it runs.
  std::optional<ExitStatus> try_wait();
  /// Waits at most `limit` for its end; nothing if it still runs then.
  std::optional<ExitStatus> wait_for(std::chrono::milliseconds limit);
  /// Waits for its end.
  ExitStatus wait();

 private:
  std::optional<ExitStatus> reap(bool block);

  pid_t pid_ = -1;
  std::optional<ExitStatus> ended_;
  bool own_group_ = false;
  int stdin_fd_ = -1;
  int stdout_fd_ = -1;
  int stderr_fd_ = -1;
  int release_fd_ = -1;     // held: closing it lets the child exec
  int exec_error_fd_ = -1;  // reads the child's errno when its exec failed, EOF when it succeeded
  int pidfd_ = -1;          // makes the child's end pollable (Linux 5.3 and later)
};

/// A child run to its end by run_captured().
struct CapturedRun {
  ExitStatus status;
  bool timed_out = false;  // killed (its group, with own_process_group) at the time limit
  std::string out;         // stdout, when stdout_to is a pipe
  std::string err;         // stderr, when stderr_to is a pipe
};

/// Runs a child to its end, collecting what it writes to its stdout and stderr pipes (a stdin
/// pipe is closed at once). With a `timeout` above zero the child (its group, with
/// own_process_group) is killed with SIGKILL at the limit. Throws SpawnError as ChildProcess.
CapturedRun run_captured(const ChildOptions& options,
                         std::chrono::milliseconds timeout = std::chrono::milliseconds(0));

/// This process's environment with each of `unset` removed and each "NAME=VALUE" of `set`
/// replacing any entry of that name (added at the end, in the order given).
std::vector<std::string> environment_with(const std::vector<std::string>& set,
                                          const std::vector<std::string>& unset = {});

}  // namespace ompscale

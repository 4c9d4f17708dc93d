#pragma once
// Runs the application once (common/child_process.h): a child held until the parent has attached
// its sensors (perf counters must be opened before the exec), then exec in its own process group
// with stdin from /dev/null and stdout/stderr into a log file. Waits for it with an optional time
// limit and a stop request (SIGINT), killing the whole process group in both cases. The wall time
// runs from the fork to the moment the wait returned.

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ompscale::regions {

struct Launch {
  std::string executable;         // the file to exec (resolved through PATH)
  std::vector<std::string> argv;  // argv[0] as the user wrote it
  std::vector<std::string> env;   // the complete environment, "NAME=VALUE"
  std::string log_path;           // stdout and stderr of the application; "" = /dev/null
  double timeout_seconds = 0;     // 0 = no limit
};

/// Called at the moments the sensors need.
struct LaunchHooks {
  /// The child exists and waits before its exec (attach per-process sensors to it).
  std::function<void(pid_t)> attach;
  /// About once a second while the application runs (sampling sensors, progress).
  std::function<void()> tick;
  /// Polled while waiting; true stops the run (the process group is killed).
  std::function<bool()> should_stop;
};

struct LaunchResult {
  enum class End { kExited, kSignaled, kTimedOut, kStopped, kExecFailed };
  End end = End::kExited;
  int exit_status = 0;  // End::kExited
  int signal = 0;       // End::kSignaled, kTimedOut and kStopped (the signal that ended it)
  std::string error;    // End::kExecFailed: why the exec failed
  std::int64_t wall_ns = 0;
  // From wait4: the application and the descendants it waited for.
  std::int64_t user_ns = 0;
  std::int64_t system_ns = 0;
  std::int64_t max_rss_kib = 0;
  std::int64_t minor_faults = 0;
  std::int64_t involuntary_switches = 0;
};

/// The file execvp would run for `name`: `name` itself when it contains a '/', else the first
/// executable match on $PATH. Throws UsageError (one line) when there is none or it is not an
/// executable file.
std::string find_executable(const std::string& name);

/// Runs `launch` to its end. Throws std::runtime_error when no process can be created or the log
/// file cannot be opened.
LaunchResult launch_and_wait(const Launch& launch, const LaunchHooks& hooks);

}  // namespace ompscale::regions

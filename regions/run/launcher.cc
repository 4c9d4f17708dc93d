#include "regions/run/launcher.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>

#include "common/child_process.h"
#include "common/error.h"
#include "common/text.h"

namespace ompscale::regions {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kTickInterval = std::chrono::seconds(1);

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

// The application is started held: its sensors attach before its exec. It waits on the common
// spawner's pidfd, so the wait ends when it does; the ticks, the stop request and the resource
// use of wait4 are what only ompscan run needs.
ChildOptions child_options(const Launch& launch) {
  ChildOptions options;
  options.argv = launch.argv;
  options.executable = launch.executable;
  options.environment = launch.env;
  options.stdin_from = ChildStream::null();
  options.stdout_to =
      launch.log_path.empty() ? ChildStream::null() : ChildStream::file(launch.log_path);
  options.stderr_to = ChildStream::same_as_stdout();
  // Own process group: a Ctrl-C reaches ompscan only, and a kill reaches every process of the
  // run.
  options.own_process_group = true;
  options.held = true;
  return options;
}

// Waits for the child: kills its process group when `should_stop` says so or at the timeout,
// calls `tick` every second meanwhile. Returns how it ended; `result.end` says whether it was
// killed.
ExitStatus wait_for_child(ChildProcess& child, const Launch& launch, const LaunchHooks& hooks,
                          Clock::time_point start, LaunchResult& result) {
  const bool limited = launch.timeout_seconds > 0;
  const Clock::time_point deadline =
      start + std::chrono::duration_cast<Clock::duration>(
                  std::chrono::duration<double>(limited ? launch.timeout_seconds : 0));
  Clock::time_point next_tick = start + kTickInterval;
  bool killed = false;
  while (true) {
    const Clock::time_point now = Clock::now();
    if (!killed && hooks.should_stop && hooks.should_stop()) {
      child.signal_group(SIGKILL);
      killed = true;
      result.end = LaunchResult::End::kStopped;
    }
    if (!killed && limited && now >= deadline) {
      child.signal_group(SIGKILL);
      killed = true;
      result.end = LaunchResult::End::kTimedOut;
    }
    if (now >= next_tick) {
      if (hooks.tick) hooks.tick();
      next_tick += kTickInterval;
    }
    Clock::time_point wake = next_tick;
    if (limited && !killed) wake = std::min(wake, deadline);
    const auto wait_ms = std::chrono::ceil<std::chrono::milliseconds>(wake - Clock::now()).count();
    const auto step = std::chrono::milliseconds(std::clamp<std::int64_t>(wait_ms, 0, 1000));
    if (const std::optional<ExitStatus> status = child.wait_for(step)) return *status;
  }
}

// The child's resource use and how it ended, into `result`.
void record_end(const ExitStatus& status, Clock::time_point start, LaunchResult& result) {
  result.wall_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
  result.user_ns = status.usage.user_ns;
  result.system_ns = status.usage.system_ns;
  result.max_rss_kib = status.usage.max_rss_kib;
  result.minor_faults = status.usage.minor_faults;
  result.involuntary_switches = status.usage.involuntary_switches;

  if (result.end == LaunchResult::End::kExecFailed) return;
  if (!status.signaled) {
    // Exited by itself, even when a kill came too late to matter.
    result.end = LaunchResult::End::kExited;
    result.exit_status = status.code;
  } else {
    result.signal = status.signal;
    if (result.end != LaunchResult::End::kStopped && result.end != LaunchResult::End::kTimedOut)
      result.end = LaunchResult::End::kSignaled;
  }
}

}  // namespace

LaunchResult launch_and_wait(const Launch& launch, const LaunchHooks& hooks) {
  const ChildOptions options = child_options(launch);
  LaunchResult result;
  const Clock::time_point start = Clock::now();
  ChildProcess child(options);
  if (hooks.attach) hooks.attach(child.pid());
  if (const int error = child.release(); error != 0) {
    result.end = LaunchResult::End::kExecFailed;
    result.error = std::strerror(error);
  }
  record_end(wait_for_child(child, launch, hooks, start, result), start, result);
  return result;
}

}  // namespace ompscale::regions

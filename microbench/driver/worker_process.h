#pragma once
// Runs one ompbench worker as a child process: the job goes to its stdin, its records come back
// line by line from its stdout. Stoppable: when `should_stop()` becomes true the worker is
// terminated and whatever batch it was measuring is lost whole (the caller only keeps batches
// whose `end` record arrived).

#include <atomic>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace ompscale::microbench {

struct WorkerLaunch {
  std::string executable;
  /// Environment entries to set ("OMP_PROC_BIND=spread"); the rest is inherited, except OMP_* and
  /// GOMP_*/KMP_* variables that would change what is measured, which the caller lists in `unset`.
  std::vector<std::string> set_env;
  std::vector<std::string> unset_env;
  std::string job;
};

struct WorkerExit {
  bool stopped = false;  // ended by should_stop(), not by itself
  int status = 0;        // exit status, or 128 + signal
  std::string describe;  // "exit status 2", "killed by signal 11"
};

/// Runs the worker to completion; calls `on_line` for every line of its stdout (without the line
/// end). Throws std::runtime_error when the worker cannot be started.
WorkerExit run_worker(const WorkerLaunch& launch, const std::function<bool()>& should_stop,
                      const std::function<void(const std::string&)>& on_line);

}  // namespace ompscale::microbench

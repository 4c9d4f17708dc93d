#include "microbench/driver/worker_process.h"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>

#include "common/child_process.h"

namespace ompscale::microbench {

// The records are read here, not through run_captured: each line is handed on as it arrives, and
// a stop request is answered with SIGTERM to the worker alone, which then ends its batch.
WorkerExit run_worker(const WorkerLaunch& launch, const std::function<bool()>& should_stop,
                      const std::function<void(const std::string&)>& on_line) {
  ChildOptions options;
  options.argv = {launch.executable, "--job", "-"};
  options.environment = environment_with(launch.set_env, launch.unset_env);
  options.stdin_from = ChildStream::pipe();
  options.stdout_to = ChildStream::pipe();
  // The worker must not see the terminal's SIGINT default: it ignores SIGINT itself, and the
  // driver decides. Its own process group keeps a Ctrl-C from reaching it at all.
  options.own_process_group = true;
  ChildProcess child(options);
  child.feed_stdin(launch.job);

  WorkerExit result;
  std::string pending;
  char buffer[65536];
  while (true) {
    if (!result.stopped && should_stop()) {
      result.stopped = true;
      child.signal(SIGTERM);
    }
    pollfd fd{child.stdout_fd(), POLLIN, 0};
    const int ready = poll(&fd, 1, 100);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    const ssize_t n = read(child.stdout_fd(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    pending.append(buffer, static_cast<std::size_t>(n));
    std::size_t start = 0;
    for (std::size_t end; (end = pending.find('\n', start)) != std::string::npos; start = end + 1)
      if (!result.stopped) on_line(pending.substr(start, end - start));
    pending.erase(0, start);
  }
  const ExitStatus status = child.wait();
  result.status = status.shell_code();
  result.describe = status.describe();
  return result;
}

}  // namespace ompscale::microbench

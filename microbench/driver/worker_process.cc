#include "microbench/driver/worker_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace ompscale::microbench {

namespace {

std::vector<std::string> child_environment(const WorkerLaunch& launch) {
  std::vector<std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string item = *entry;
    const std::string name = item.substr(0, item.find('='));
    bool drop = false;
    for (const std::string& unset : launch.unset_env) drop = drop || name == unset;
    for (const std::string& set : launch.set_env)
      drop = drop || set.substr(0, set.find('=')) == name;
    if (!drop) env.push_back(item);
  }
  env.insert(env.end(), launch.set_env.begin(), launch.set_env.end());
  return env;
}

void write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;  // the worker died early; its exit status tells the caller
    }
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

WorkerExit run_worker(const WorkerLaunch& launch, const std::function<bool()>& should_stop,
                      const std::function<void(const std::string&)>& on_line) {
  int to_child[2];
  int from_child[2];
  if (pipe2(to_child, O_CLOEXEC) != 0 || pipe2(from_child, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("cannot create a pipe: ") + std::strerror(errno));

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, to_child[0], 0);
  posix_spawn_file_actions_adddup2(&actions, from_child[1], 1);
  // The worker must not see the terminal's SIGINT default: it ignores SIGINT itself, and the
  // driver decides. Its own process group keeps a Ctrl-C from reaching it at all.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);

  const std::vector<std::string> env = child_environment(launch);
  std::vector<char*> envp;
  for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const std::string job_flag = "--job";
  const std::string job_arg = "-";
  char* argv[] = {const_cast<char*>(launch.executable.c_str()), const_cast<char*>(job_flag.c_str()),
                  const_cast<char*>(job_arg.c_str()), nullptr};
  pid_t pid = 0;
  const int spawned =
      posix_spawn(&pid, launch.executable.c_str(), &actions, &attributes, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  close(to_child[0]);
  close(from_child[1]);
  if (spawned != 0) {
    close(to_child[1]);
    close(from_child[0]);
    throw std::runtime_error("cannot start " + launch.executable + ": " + std::strerror(spawned));
  }

  // A worker that exits before reading its job must not kill us with SIGPIPE.
  struct sigaction ignore {};
  struct sigaction previous {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &previous);
  write_all(to_child[1], launch.job);
  close(to_child[1]);
  sigaction(SIGPIPE, &previous, nullptr);

  WorkerExit result;
  std::string pending;
  char buffer[65536];
  bool open = true;
  while (open) {
    if (!result.stopped && should_stop()) {
      result.stopped = true;
      kill(pid, SIGTERM);
    }
    pollfd fd{from_child[0], POLLIN, 0};
    const int ready = poll(&fd, 1, 100);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    const ssize_t n = read(from_child[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      open = false;
      break;
    }
    pending.append(buffer, static_cast<std::size_t>(n));
    std::size_t start = 0;
    for (std::size_t end; (end = pending.find('\n', start)) != std::string::npos; start = end + 1)
      if (!result.stopped) on_line(pending.substr(start, end - start));
    pending.erase(0, start);
  }
  close(from_child[0]);

  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) {
    result.status = WEXITSTATUS(status);
    result.describe = "exit status " + std::to_string(result.status);
  } else if (WIFSIGNALED(status)) {
    result.status = 128 + WTERMSIG(status);
    result.describe = std::string("killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
                      strsignal(WTERMSIG(status)) + ")";
  }
  return result;
}

}  // namespace ompscale::microbench

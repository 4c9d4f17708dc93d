#pragma once
// Running a built tool as a child process in end-to-end tests: posix_spawn with argv as given (no
// shell), stdin from a file, stdout and stderr into files. Shared by every CLI test.

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace ompscale::test_support {

inline std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void spit(const std::filesystem::path& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
  if (!out.good()) throw std::runtime_error("cannot write " + path.string());
}

/// A started child. wait() returns the exit status, or 128 + signal when it was killed.
class ChildProcess {
 public:
  ChildProcess(const std::vector<std::string>& argv, const std::filesystem::path& stdin_file,
               const std::filesystem::path& stdout_file, const std::filesystem::path& stderr_file) {
    std::vector<std::string> storage = argv;
    std::vector<char*> args;
    for (std::string& a : storage) args.push_back(a.data());
    args.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, stdin_file.c_str(), O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, stdout_file.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_file.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int rc = posix_spawn(&pid_, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) throw std::runtime_error("posix_spawn " + argv[0] + ": " + std::strerror(rc));
  }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      wait();
    }
  }

  void signal(int number) { kill(pid_, number); }

  /// The exit status (as wait()) when the child has ended, nothing while it runs.
  std::optional<int> try_wait() {
    int status = 0;
    const pid_t done = waitpid(pid_, &status, WNOHANG);
    if (done != pid_) return std::nullopt;
    pid_ = 0;
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
  }

  int wait() {
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = 0;
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
  }

 private:
  pid_t pid_ = 0;
};

struct Outcome {
  int status = -1;  // exit status, or 128 + signal
  std::string out;
  std::string err;
};

/// Runs argv to completion with stdin from `stdin_file`; output files live in `scratch_dir` and
/// are removed afterwards.
inline Outcome run_program(const std::vector<std::string>& argv,
                           const std::filesystem::path& scratch_dir,
                           const std::filesystem::path& stdin_file = "/dev/null") {
  static int runs = 0;
  const std::string stem = "run" + std::to_string(runs++);
  const std::filesystem::path out_file = scratch_dir / (stem + ".stdout");
  const std::filesystem::path err_file = scratch_dir / (stem + ".stderr");
  Outcome result;
  {
    ChildProcess child(argv, stdin_file, out_file, err_file);
    result.status = child.wait();
  }
  result.out = slurp(out_file);
  result.err = slurp(err_file);
  std::filesystem::remove(out_file);
  std::filesystem::remove(err_file);
  return result;
}

}  // namespace ompscale::test_support

#include "dashboard/nightly/run_tool.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "common/error.h"
#include "common/executable_path.h"
#include "common/text.h"

extern char** environ;

namespace ompscale::dashboard {

namespace fs = std::filesystem;

namespace {

bool executable(const fs::path& path) {
  return access(path.c_str(), X_OK) == 0 && fs::is_regular_file(path);
}

}  // namespace

std::string find_tool(const std::string& name, const std::string& module,
                      const std::map<std::string, std::string>& tools) {
  if (const auto it = tools.find(name); it != tools.end()) {
    if (!executable(it->second)) throw UsageError(fmt::format("{}: not an executable", it->second));
    return it->second;
  }
  const fs::path self = executable_directory();
  std::vector<fs::path> tried = {self / name, self.parent_path() / module / name};
  if (const char* path = std::getenv("PATH")) {
    for (const std::string& dir : split(path, ':')) {
      if (!dir.empty()) tried.push_back(fs::path(dir) / name);
    }
  }
  for (const fs::path& p : tried) {
    if (executable(p)) return p.string();
  }
  throw UsageError(
      fmt::format("cannot find {}: not next to ompdash, not in {}, not on PATH; name "
                  "it in the configuration's \"tools\"",
                  name, (self.parent_path() / module).string()));
}

int run_tool(const std::vector<std::string>& argv,
             const std::map<std::string, std::string>& environment, const std::string& log) {
  std::vector<std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string item = *entry;
    if (!environment.contains(item.substr(0, item.find('=')))) env.push_back(item);
  }
  for (const auto& [name, value] : environment) env.push_back(name + "=" + value);
  std::vector<char*> args, envp;
  std::vector<std::string> storage = argv;
  for (std::string& a : storage) args.push_back(a.data());
  args.push_back(nullptr);
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0)
    throw std::runtime_error(fmt::format("cannot run {}: {}", argv[0], std::strerror(rc)));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 255;
}

}  // namespace ompscale::dashboard

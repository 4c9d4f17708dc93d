#include "regions/run/loaded_library.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "common/text.h"

namespace ompscale::regions {

std::vector<std::pair<std::string, std::string>> parse_loader_trace(const std::string& trace) {
  std::vector<std::pair<std::string, std::string>> libraries;
  for (std::string line : split(trace, '\n')) {
    const std::size_t arrow = line.find(" => ");
    if (arrow == std::string::npos) continue;
    const std::size_t start = line.find_first_not_of(" \t");
    std::string soname = line.substr(start, arrow - start);
    std::string path = line.substr(arrow + 4);
    if (const std::size_t address = path.rfind(" (0x"); address != std::string::npos)
      path.erase(address);
    if (path == "not found") path.clear();
    libraries.emplace_back(std::move(soname), std::move(path));
  }
  return libraries;
}

std::string loaded_library(const std::string& executable,
                           const std::vector<std::string>& environment,
                           const std::vector<std::string>& sonames) {
  std::vector<std::string> env = environment;
  env.emplace_back("LD_TRACE_LOADED_OBJECTS=1");
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string program = executable;
  char* argv[] = {program.data(), nullptr};

  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return "";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, executable.c_str(), &actions, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  std::string trace;
  if (spawned == 0) {
    char buffer[4096];
    for (ssize_t n; (n = read(out[0], buffer, sizeof buffer)) != 0;) {
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) break;
      trace.append(buffer, static_cast<std::size_t>(n));
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  close(out[0]);
  for (const auto& [soname, path] : parse_loader_trace(trace))
    for (const std::string& wanted : sonames)
      if (soname == wanted && !path.empty()) return path;
  return "";
}

}  // namespace ompscale::regions

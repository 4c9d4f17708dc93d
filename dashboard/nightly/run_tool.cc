#include "dashboard/nightly/run_tool.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "common/child_process.h"
#include "common/error.h"
#include "common/executable_path.h"
#include "common/text.h"

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
  std::vector<std::string> set;
  for (const auto& [name, value] : environment) set.push_back(name + "=" + value);
  ChildOptions options;
  options.argv = argv;
  options.environment = environment_with(set);
  options.stdin_from = ChildStream::null();
  options.stdout_to = ChildStream::append(log);
  options.stderr_to = ChildStream::same_as_stdout();
  return ChildProcess(options).wait().shell_code();
}

}  // namespace ompscale::dashboard

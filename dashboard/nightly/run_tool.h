#pragma once
// Running ompscale's other tools (ompbench, modeler, ompscan) from `ompdash nightly`: finding
// them, and running one to its end with its output appended to the night's log.

#include <map>
#include <string>
#include <vector>

namespace ompscale::dashboard {

/// Where tool `name` is: tools[name] when given, else next to the running ompdash (an installed
/// bundle), else `module`/`name` in the build tree ompdash was built in (../`module`/ from
/// ompdash's directory), else on $PATH. Throws UsageError naming the places tried.
std::string find_tool(const std::string& name, const std::string& module,
                      const std::map<std::string, std::string>& tools);

/// Runs `argv` with `environment` added to ompdash's own, stdin from /dev/null, stdout and stderr
/// appended to `log`. Returns the exit status, or 128 + the signal that ended it. Throws
/// std::runtime_error when it cannot be started.
int run_tool(const std::vector<std::string>& argv,
             const std::map<std::string, std::string>& environment, const std::string& log);

}  // namespace ompscale::dashboard

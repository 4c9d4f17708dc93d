#include "regions/run/run_environment.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "common/error.h"
#include "common/executable_path.h"
#include "regions/run/gomp_abi.h"

extern char** environ;

namespace ompscale::regions {

namespace {

namespace fs = std::filesystem;

constexpr char kToolName[] = "libompscan.so";

std::string name_of(const std::string& entry) {
  return entry.substr(0, entry.find('='));
}

std::string value_of(const std::vector<std::string>& env, const std::string& name) {
  for (const std::string& entry : env)
    if (name_of(entry) == name) return entry.substr(std::min(entry.size(), name.size() + 1));
  return "";
}

bool has(const std::vector<std::string>& env, const std::string& name) {
  return std::any_of(env.begin(), env.end(),
                     [&](const std::string& entry) { return name_of(entry) == name; });
}

// `first` before the current list in a ':'-separated path variable.
std::string prepend(const std::vector<std::string>& env, const std::string& name,
                    const std::string& first) {
  const std::string current = value_of(env, name);
  return current.empty() ? first : first + ":" + current;
}

}  // namespace

std::string locate_tool(const std::string& option) {
  std::error_code error;
  if (!option.empty()) {
    if (!fs::is_regular_file(option, error))
      throw UsageError(fmt::format("--tool {}: no such file", option));
    return fs::absolute(option).string();
  }
  if (const char* env = std::getenv("OMPSCAN_TOOL"); env != nullptr && *env != '\0') {
    if (!fs::is_regular_file(env, error))
      throw UsageError(fmt::format("OMPSCAN_TOOL={}: no such file", env));
    return fs::absolute(env).string();
  }
  const fs::path directory = executable_directory();
  std::vector<fs::path> candidates;
  if (!directory.empty()) {
    candidates.push_back(directory / kToolName);
    candidates.push_back(directory.parent_path() / "lib" / kToolName);
  }
  for (const fs::path& candidate : candidates)
    if (fs::is_regular_file(candidate, error)) return candidate.lexically_normal().string();
  std::string looked;
  for (const fs::path& candidate : candidates)
    looked += (looked.empty() ? "" : ", ") + candidate.lexically_normal().string();
  throw UsageError(
      fmt::format("cannot find the OMPT tool {} (looked at {}); pass --tool PATH or "
                  "set OMPSCAN_TOOL",
                  kToolName, looked.empty() ? "nothing" : looked));
}

std::vector<std::string> run_environment(const std::vector<std::string>& base,
                                         const RunSettings& settings) {
  std::vector<std::string> ours = {fmt::format("OMP_NUM_THREADS={}", settings.threads)};
  if (!settings.native) {
    ours.insert(ours.end(), {"OMP_TOOL=enabled", "OMP_TOOL_LIBRARIES=" + settings.tool,
                             "LD_PRELOAD=" + prepend(base, "LD_PRELOAD", settings.tool),
                             "OMPSCAN_OUTPUT=" + settings.profile});
    if (settings.tsc_hz > 0) ours.push_back(fmt::format("OMPSCAN_TSC_HZ={:.3f}", settings.tsc_hz));
    if (settings.raw_locations) ours.push_back("OMPSCAN_LOCATIONS=raw");
  }
  if (!settings.bind.empty()) ours.push_back("OMP_PROC_BIND=" + settings.bind);
  if (!settings.places.empty()) ours.push_back("OMP_PLACES=" + settings.places);
  if (!settings.gomp_shim.empty()) {
    ours.push_back("LD_LIBRARY_PATH=" + prepend(base, "LD_LIBRARY_PATH", settings.gomp_shim));
    // Measured runs keep the application's behaviour; a native run on libomp is what a user
    // who switches runtimes gets, libomp's default included.
    if (settings.libgomp_schedule && !settings.native && !has(base, "OMP_SCHEDULE"))
      ours.push_back(std::string("OMP_SCHEDULE=") + kLibgompRuntimeSchedule);
  }
  ours.insert(ours.end(), settings.extra.begin(), settings.extra.end());

  std::vector<std::string> env;
  for (const std::string& entry : base) {
    const std::string name = name_of(entry);
    if (std::none_of(ours.begin(), ours.end(),
                     [&](const std::string& mine) { return name_of(mine) == name; }))
      env.push_back(entry);
  }
  env.insert(env.end(), ours.begin(), ours.end());
  return env;
}

std::vector<std::string> current_environment() {
  std::vector<std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) env.emplace_back(*entry);
  return env;
}

std::vector<std::pair<std::string, std::string>> openmp_variables(
    const std::vector<std::string>& env) {
  std::vector<std::pair<std::string, std::string>> variables;
  for (const std::string& entry : env) {
    const std::string name = name_of(entry);
    if (name.starts_with("OMP_") || name.starts_with("KMP_") || name.starts_with("GOMP_") ||
        name.starts_with("LIBOMP_"))
      variables.emplace_back(name, value_of({entry}, name));
  }
  std::sort(variables.begin(), variables.end());
  return variables;
}

}  // namespace ompscale::regions

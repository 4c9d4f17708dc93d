#include "regions/run/loaded_library.h"

#include "common/child_process.h"
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
  ChildOptions options;
  options.argv = {executable};
  options.environment = environment;
  options.environment->emplace_back("LD_TRACE_LOADED_OBJECTS=1");
  options.stdout_to = ChildStream::pipe();
  options.stderr_to = ChildStream::null();
  std::string trace;
  try {
    trace = run_captured(options).out;
  } catch (const SpawnError&) {
    return "";  // no trace: as when the loader maps none of them
  }
  for (const auto& [soname, path] : parse_loader_trace(trace))
    for (const std::string& wanted : sonames)
      if (soname == wanted && !path.empty()) return path;
  return "";
}

}  // namespace ompscale::regions

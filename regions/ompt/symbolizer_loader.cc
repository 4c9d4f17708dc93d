// Tool side of symbolizer_plugin.h: loads libompscan_symbolize.so from the tool's own directory.
#include <dlfcn.h>
#include <limits.h>

#include <cstring>
#include <string>
#include <vector>

#include "regions/ompt/symbolizer_plugin.h"

namespace ompscale::regions::ompt {
namespace {

// The plugin's path, or "" when the tool's directory is unknown. A plain array: finalize runs
// after the tool's static destructors.
char symbolizer_path[PATH_MAX] = "";

struct Resolution {
  std::vector<CodeLocation*>* locations;
  bool out_of_memory = false;
};

// Called by the plugin: nothing may be thrown back through it.
void on_found(void* context, std::size_t index, const char* file, int line,
              const char* function) noexcept {
  auto& resolution = *static_cast<Resolution*>(context);
  if (index >= resolution.locations->size()) return;
  CodeLocation& location = *(*resolution.locations)[index];
  try {
    location.file = file != nullptr ? file : "";
    location.line = line;
    location.function = function != nullptr ? function : "";
  } catch (...) {
    clear_source_line(location);
    resolution.out_of_memory = true;
  }
}

}  // namespace

void locate_symbolizer() {
  try {
    CodeLocation tool;
    // Any address inside this library will do; capture expects a return address (one past a
    // call).
    if (!capture_code_location(reinterpret_cast<const char*>(&locate_symbolizer) + 1, tool)) return;
    const std::size_t slash = tool.module.rfind('/');
    if (slash == std::string::npos) return;
    const std::string path = tool.module.substr(0, slash + 1) + kSymbolizerLibrary;
    if (path.size() < sizeof symbolizer_path)
      std::memcpy(symbolizer_path, path.c_str(), path.size() + 1);
  } catch (...) {
    // Out of memory: the path stays unknown and finalize says so.
  }
}

std::string resolve_with_symbolizer(std::vector<CodeLocation*>& locations) {
  if (locations.empty()) return "";
  try {
    if (symbolizer_path[0] == '\0') return "cannot find the tool library's own directory";
    // Never closed: the process is exiting, and libdw may keep state until then.
    void* plugin = dlopen(symbolizer_path, RTLD_NOW | RTLD_LOCAL);
    if (plugin == nullptr) {
      const char* why = dlerror();
      return std::string("cannot load the symbolizer: ") + (why != nullptr ? why : symbolizer_path);
    }
    auto resolve =
        reinterpret_cast<ompscan_resolve_locations_function>(dlsym(plugin, kSymbolizerEntry));
    if (resolve == nullptr) return std::string(symbolizer_path) + " has no " + kSymbolizerEntry;
    std::vector<ompscan_location_query> queries;
    queries.reserve(locations.size());
    for (const CodeLocation* location : locations) {
      queries.push_back({location->module.c_str(), location->build_id.c_str(), location->offset});
    }
    Resolution resolution{&locations};
    resolve(queries.data(), queries.size(), on_found, &resolution);
    return resolution.out_of_memory ? "out of memory while resolving" : "";
  } catch (...) {
    return "out of memory";
  }
}

}  // namespace ompscale::regions::ompt

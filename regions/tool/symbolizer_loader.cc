// Tool side of symbolizer_plugin.h: loads libompscan_symbolize.so from the tool's own directory.
#include <dlfcn.h>

#include <string>
#include <vector>

#include "regions/tool/symbolizer_plugin.h"

namespace ompscale::regions::tool {
namespace {

void on_found(void* context, std::size_t index, const char* file, int line, const char* function) {
  CodeLocation& location = *(*static_cast<std::vector<CodeLocation*>*>(context))[index];
  location.file = file != nullptr ? file : "";
  location.line = line;
  location.function = function != nullptr ? function : "";
}

}  // namespace

std::string resolve_with_symbolizer(std::vector<CodeLocation*>& locations) {
  if (locations.empty()) return "";
  try {
    Dl_info self{};
    if (dladdr(reinterpret_cast<void*>(&resolve_with_symbolizer), &self) == 0 ||
        self.dli_fname == nullptr) {
      return "cannot find the tool library's own path";
    }
    std::string path = self.dli_fname;
    const std::size_t slash = path.rfind('/');
    path = (slash == std::string::npos ? std::string() : path.substr(0, slash + 1)) +
           kSymbolizerLibrary;
    // Never closed: the process is exiting, and libdw may keep state until then.
    void* plugin = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (plugin == nullptr) {
      const char* why = dlerror();
      return std::string("cannot load the symbolizer: ") + (why != nullptr ? why : path.c_str());
    }
    auto resolve =
        reinterpret_cast<ompscan_resolve_locations_function>(dlsym(plugin, kSymbolizerEntry));
    if (resolve == nullptr) return path + " has no " + kSymbolizerEntry;
    std::vector<ompscan_location_query> queries;
    queries.reserve(locations.size());
    for (const CodeLocation* location : locations) {
      queries.push_back({location->module.c_str(), location->build_id.c_str(), location->offset});
    }
    resolve(queries.data(), queries.size(), on_found, &locations);
    return "";
  } catch (...) {
    return "out of memory";
  }
}

}  // namespace ompscale::regions::tool

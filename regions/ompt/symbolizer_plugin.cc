// The entry point of libompscan_symbolize.so (symbolizer_plugin.h).
#include "regions/ompt/symbolizer_plugin.h"

#include "regions/ompt/symbolize.h"

extern "C" __attribute__((visibility("default"))) void ompscan_resolve_locations_v1(
    const ompscan_location_query* queries, std::size_t count, ompscan_source_line_found found,
    void* context) {
  using ompscale::regions::ompt::CodeLocation;
  try {
    std::vector<CodeLocation> locations(count);
    std::vector<CodeLocation*> pointers(count);
    for (std::size_t i = 0; i < count; ++i) {
      locations[i].module = queries[i].module != nullptr ? queries[i].module : "";
      locations[i].build_id = queries[i].build_id != nullptr ? queries[i].build_id : "";
      locations[i].offset = queries[i].offset;
      pointers[i] = &locations[i];
    }
    ompscale::regions::ompt::resolve_locations(pointers);
    for (std::size_t i = 0; i < count; ++i) {
      const CodeLocation& location = locations[i];
      if (location.file.empty() && location.function.empty()) continue;
      found(context, i, location.file.c_str(), location.line, location.function.c_str());
    }
  } catch (...) {
    // Out of memory: nothing (more) is resolved.
  }
}

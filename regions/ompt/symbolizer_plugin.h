// libompscan_symbolize.so: the symbolizer (symbolize.h, elfutils libdw) as a library the tool
// loads with dlopen only when it resolves source lines itself, at finalize, when used without
// `ompscan run` (which asks for raw locations and resolves them after the run). Loading libdw and
// its compression libraries costs every process about 0.2 ms, so the tool does not link it.
//
// The interface is C, and no exception crosses it: the tool and the plugin each carry their own
// C++ standard library. Its entry point's name carries the interface's version, so a stale
// plugin next to a newer tool is not found rather than misread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "regions/ompt/code_location.h"

extern "C" {

struct ompscan_location_query {
  const char* module;    // absolute path of the ELF object
  const char* build_id;  // lowercase hex, "" when unknown
  std::uint64_t offset;  // link-time address inside the object (CodeLocation::offset)
};

// Called once per query that resolved to a source line or a function; the strings live until
// the callback returns. `line` is 0 and `file` "" when only the function is known. Must not throw.
typedef void (*ompscan_source_line_found)(void* context, std::size_t index, const char* file,
                                          int line, const char* function);

// Resolves `count` queries, each module opened once. Never throws.
typedef void (*ompscan_resolve_locations_function)(const ompscan_location_query* queries,
                                                   std::size_t count,
                                                   ompscan_source_line_found found, void* context);
}

namespace ompscale::regions::ompt {

/// The plugin's file name and its one entry point (symbolizer_exports.map exports it alone).
inline constexpr const char* kSymbolizerLibrary = "libompscan_symbolize.so";
inline constexpr const char* kSymbolizerEntry = "ompscan_resolve_locations_v1";

/// Tool side, at initialize: remembers the directory of the library holding the tool, where the
/// plugin is looked for (the application may change directory later, and the tool may have been
/// named by a relative path).
void locate_symbolizer();

/// Tool side, at finalize: fills file/line/function of `locations` through the plugin. Returns ""
/// on success, else why nothing was resolved (the locations then keep module, build id and
/// offset, which `ompscan` can resolve later).
std::string resolve_with_symbolizer(std::vector<CodeLocation*>& locations);

}  // namespace ompscale::regions::ompt

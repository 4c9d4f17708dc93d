#pragma once
// Which file the dynamic loader maps for a library, asked of the loader itself as ldd does
// (LD_TRACE_LOADED_OBJECTS=1: it resolves and lists the libraries, then exits without running
// the program), so RUNPATH, LD_LIBRARY_PATH and ld.so.cache are honoured exactly.

#include <string>
#include <vector>

namespace ompscale::regions {

/// The path the loader maps for the first of `sonames` it loads when starting `executable` with
/// `environment` ("NAME=VALUE" entries), or "" when it loads none of them. Only for dynamically
/// linked executables (ElfDynamicInfo::has_interpreter): a static one would simply run.
std::string loaded_library(const std::string& executable,
                           const std::vector<std::string>& environment,
                           const std::vector<std::string>& sonames);

/// The trace's "\tSONAME => PATH (0x...)" lines as (soname, path); "not found" gives "".
std::vector<std::pair<std::string, std::string>> parse_loader_trace(const std::string& trace);

}  // namespace ompscale::regions

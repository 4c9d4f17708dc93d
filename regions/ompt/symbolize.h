// Source lines of captured code locations (code_location.h): file, line and function from the
// objects' DWARF through elfutils libdw.
//
// Linked into the ompscan command (which resolves the raw locations of the profiles `ompscan run`
// collects) and into libompscan_symbolize.so, which the tool loads only when it must resolve
// locations itself (symbolizer_plugin.h): the tool library does not depend on libdw, so the
// application does not pay for loading it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "regions/ompt/code_location.h"

namespace ompscale::regions::ompt {

// Fills file/line/function of every location from its module's debug info, opening each module
// once. A module whose file is gone, unreadable, stripped, or whose build id differs from the
// captured one leaves its locations' fields empty. Never throws.
void resolve_locations(std::vector<CodeLocation*>& locations);

// Offline resolution of `offset` (as in CodeLocation::offset) in the ELF file `module`: sets
// module, offset, build_id (read from the file) and file/line/function where found. True when a
// source line was found. Never throws.
bool resolve_offset(const std::string& module, std::uint64_t offset, CodeLocation& out);

}  // namespace ompscale::regions::ompt

// Code locations of the addresses OMPT reports (codeptr_ra), in two steps:
//
// 1. capture_code_location(), at first sight of a code pointer inside a callback: which loaded ELF
//    object holds the address, that object's build id, and the address as an offset within the
//    object. Cheap (one pass over the loaded objects, per-module results cached) and independent
//    of debug info.
// 2. resolve_locations(), at finalize: source file, line and function from the objects' DWARF
//    (elfutils libdw), where present.
//
// The offset is the object's link-time virtual address of the call instruction, so it means the
// same thing for PIE and non-PIE executables and dlopen'ed libraries, and a report can re-resolve
// it offline later (resolve_offset) against the same file, checked by build id.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ompscale::regions::tool {

struct CodeLocation {
  std::string module;        // absolute path of the ELF object holding the address
  std::string build_id;      // GNU build id in lowercase hex, "" when the object has none
  std::uint64_t offset = 0;  // return address - 1 - load bias: the call instruction's link-time
                             // address inside `module` (for non-PIE executables the address
                             // itself)
  // Filled by resolve_locations/resolve_offset; empty (line 0) when there is no debug info.
  std::string file;  // source file as recorded in DWARF (usually absolute)
  int line = 0;
  std::string function;  // demangled; the innermost (possibly inlined) function at the address
};

// Fills module, build_id and offset for `return_address` (a codeptr_ra: the address after a call)
// and clears file/line/function. False, with `out` untouched, when no loaded object holds the
// address (or it is null).
//
// Safe to call concurrently from any thread, also while another thread is inside dlopen: it uses
// dl_iterate_phdr, whose lock dlopen does not hold while running constructors (dladdr's does, and
// a constructor that starts a parallel region would deadlock against callbacks calling dladdr).
bool capture_code_location(const void* return_address, CodeLocation& out);

// Fills file/line/function of every location from its module's debug info, opening each module
// once. A module whose file is gone, unreadable, stripped, or whose build id differs from the
// captured one leaves its locations' fields empty. Never throws.
void resolve_locations(std::vector<CodeLocation*>& locations);

// Offline resolution of `offset` (as in CodeLocation::offset) in the ELF file `module`: sets
// module, offset, build_id (read from the file) and file/line/function where found. True when a
// source line was found. Never throws.
bool resolve_offset(const std::string& module, std::uint64_t offset, CodeLocation& out);

}  // namespace ompscale::regions::tool

// Where an address OMPT reports (a codeptr_ra) lies in the loaded program, captured inside a
// callback at first sight of the address: which loaded ELF object holds it, that object's build
// id, and the address as an offset within the object. Cheap (one pass over the loaded objects,
// per-module results cached) and independent of debug info; source lines come later from
// symbolize.h.
//
// The offset is the object's link-time virtual address of the call instruction, so it means the
// same thing for PIE and non-PIE executables and dlopen'ed libraries, and a report can re-resolve
// it offline later against the same file, checked by build id.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ompscale::regions::ompt {

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

// Empties file, line and function.
inline void clear_source_line(CodeLocation& location) {
  location.file.clear();
  location.line = 0;
  location.function.clear();
}

// `size` bytes as lowercase hex digits (build ids).
inline std::string to_hex(const unsigned char* bytes, std::size_t size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex(2 * size, '0');
  for (std::size_t i = 0; i < size; ++i) {
    hex[2 * i] = kDigits[bytes[i] >> 4];
    hex[2 * i + 1] = kDigits[bytes[i] & 0xf];
  }
  return hex;
}

}  // namespace ompscale::regions::ompt

#pragma once
// What the dynamic loader will ask of an executable or shared library: its DT_NEEDED libraries,
// the symbol versions it needs from each (.gnu.version_r) and, for a library, the versions it
// defines (.gnu.version_d). Read with elfutils' libelf, without running anything.

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ompscale::regions {

struct ElfDynamicInfo {
  /// Has a program interpreter (PT_INTERP): the dynamic loader starts it.
  bool has_interpreter = false;
  /// DT_NEEDED entries in order, e.g. "libgomp.so.1".
  std::vector<std::string> needed;
  /// Per needed file (the vn_file of .gnu.version_r), the version names needed from it, e.g.
  /// {"libgomp.so.1": {"GOMP_4.0", "OMP_1.0"}}.
  std::map<std::string, std::vector<std::string>> version_needs;
  /// The versions the file defines, without the base entry (its soname), e.g. "GOMP_4.5".
  std::vector<std::string> version_definitions;

  bool needs(const std::string& soname) const;
};

/// Reads `path`. nullopt when it is not an ELF file (a script, a text file). Throws InputError
/// naming the file when it cannot be opened or its ELF structures are broken.
std::optional<ElfDynamicInfo> read_elf_dynamic_info(const std::string& path);

}  // namespace ompscale::regions

#include "regions/tool/symbolize.h"

#include <cxxabi.h>
#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include <cstdlib>
#include <cstring>
#include <map>

namespace ompscale::regions::tool {
namespace {

// ---------------------------------------------------------------------------------------------
// Resolution: DWARF through libdwfl.

std::string demangle(const char* name) {
  if (name == nullptr) return "";
  int status = 0;
  char* demangled = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || demangled == nullptr) return name;
  std::string result(demangled);
  std::free(demangled);
  return result;
}

// Follows DW_AT_abstract_origin (inlined code, out-of-line instances) and DW_AT_specification
// (definitions outside their class) from `die` to the declaration, which, unlike a definition,
// sits inside its namespaces and classes. False when `die` refers to nothing.
bool declaration_of(Dwarf_Die* die, Dwarf_Die& declaration) {
  declaration = *die;
  bool followed = false;
  for (int depth = 0; depth < 4; ++depth) {  // origin -> specification, with room to spare
    Dwarf_Attribute attribute;
    Dwarf_Attribute* reference = dwarf_attr(&declaration, DW_AT_abstract_origin, &attribute);
    if (reference == nullptr) reference = dwarf_attr(&declaration, DW_AT_specification, &attribute);
    Dwarf_Die target;
    if (reference == nullptr || dwarf_formref_die(reference, &target) == nullptr) break;
    declaration = target;
    followed = true;
  }
  return followed;
}

// "a::b::" for a declaration inside namespace a and class b.
std::string enclosing_scopes(Dwarf_Die* declaration) {
  Dwarf_Die* scopes = nullptr;
  const int count = dwarf_getscopes_die(declaration, &scopes);
  std::string prefix;
  for (int i = 1; i < count; ++i) {  // scopes[0] is the declaration itself, outward from there
    const int tag = dwarf_tag(&scopes[i]);
    if (tag != DW_TAG_namespace && tag != DW_TAG_class_type && tag != DW_TAG_structure_type &&
        tag != DW_TAG_union_type) {
      continue;
    }
    const char* name = dwarf_diename(&scopes[i]);
    if (name == nullptr) name = tag == DW_TAG_namespace ? "(anonymous namespace)" : "(anonymous)";
    prefix.insert(0, std::string(name) + "::");
  }
  std::free(scopes);
  return prefix;
}

// A subprogram's or inlined subroutine's name, qualified by its namespaces and classes, without
// parameters: the same for gcc and clang (clang gives internal functions a linkage name, gcc does
// not). gcc names its outlined region bodies by a mangled name (with a ._omp_fn.N clone suffix),
// which is demangled; failing a name, the linkage name.
std::string function_name(Dwarf_Die* die) {
  if (const char* name = dwarf_diename(die)) {
    if (std::strncmp(name, "_Z", 2) == 0) return demangle(name);
    Dwarf_Die declaration;
    return (declaration_of(die, declaration) ? enclosing_scopes(&declaration)
                                             : enclosing_scopes(die)) +
           name;
  }
  Dwarf_Attribute attribute;
  for (const unsigned int name : {DW_AT_linkage_name, DW_AT_MIPS_linkage_name}) {
    const char* linkage = dwarf_formstring(dwarf_attr_integrate(die, name, &attribute));
    if (linkage != nullptr) return demangle(linkage);
  }
  return "";
}

// The compile unit covering `address` (a DWARF address). dwfl_module_addrdie relies on
// .debug_aranges, which clang does not emit, so failing that the units are walked.
bool find_unit(Dwfl_Module* module, Dwarf_Addr address, Dwarf_Die& unit, Dwarf_Addr& bias) {
  if (Dwarf_Die* die = dwfl_module_addrdie(module, address, &bias)) {
    unit = *die;
    return true;
  }
  Dwarf* dwarf = dwfl_module_getdwarf(module, &bias);
  if (dwarf == nullptr) return false;
  Dwarf_CU* cu = nullptr;
  Dwarf_Die cu_die;
  std::uint8_t unit_type = 0;
  while (dwarf_get_units(dwarf, cu, &cu, nullptr, &unit_type, &cu_die, nullptr) == 0) {
    if (unit_type != DW_UT_compile && unit_type != DW_UT_partial) continue;
    if (dwarf_haspc(&cu_die, address - bias) > 0) {
      unit = cu_die;
      return true;
    }
  }
  return false;
}

// Modules are reported by file name, so libdwfl never has to look for their ELF file.
int no_elf_search(Dwfl_Module*, void**, const char*, Dwarf_Addr, char**, Elf**) {
  return -1;
}

// One ELF file opened with libdwfl at its link-time addresses (plus `bias_`, which is 0 in
// practice). A separate debug file is looked for by build id in the local debug directories
// only: dwfl_standard_find_debuginfo would ask the debuginfod servers of DEBUGINFOD_URLS, i.e.
// download from the network inside the application's exit.
class DebugInfo {
 public:
  explicit DebugInfo(const std::string& path) {
    static char* debuginfo_path = nullptr;
    static const Dwfl_Callbacks callbacks = {
        .find_elf = no_elf_search,
        .find_debuginfo = dwfl_build_id_find_debuginfo,
        .section_address = dwfl_offline_section_address,
        .debuginfo_path = &debuginfo_path,
    };
    dwfl_ = dwfl_begin(&callbacks);
    if (dwfl_ == nullptr) return;
    dwfl_report_begin(dwfl_);
    module_ = dwfl_report_elf(dwfl_, path.c_str(), path.c_str(), -1, 0, false);
    dwfl_report_end(dwfl_, nullptr, nullptr);
    if (module_ != nullptr && dwfl_module_getelf(module_, &bias_) == nullptr) module_ = nullptr;
  }
  ~DebugInfo() {
    if (dwfl_ != nullptr) dwfl_end(dwfl_);
  }
  DebugInfo(const DebugInfo&) = delete;
  DebugInfo& operator=(const DebugInfo&) = delete;

  bool ok() const { return module_ != nullptr; }

  std::string build_id() const {
    const unsigned char* bits = nullptr;
    GElf_Addr vaddr = 0;
    const int size = dwfl_module_build_id(module_, &bits, &vaddr);
    return size > 0 ? to_hex(bits, size) : "";
  }

  // Fills out's file/line/function for the link-time address `offset`.
  void resolve(std::uint64_t offset, CodeLocation& out) {
    const Dwarf_Addr address = offset + bias_;
    Dwarf_Die unit;
    Dwarf_Addr dwarf_bias = 0;
    if (find_unit(module_, address, unit, dwarf_bias)) {
      const Dwarf_Addr pc = address - dwarf_bias;
      if (Dwarf_Line* line = dwarf_getsrc_die(&unit, pc)) {
        const char* file = dwarf_linesrc(line, nullptr, nullptr);
        int number = 0;
        if (file != nullptr && dwarf_lineno(line, &number) == 0) {
          out.file = file;
          out.line = number;
        }
      }
      // Innermost first: the inlined function whose code this is, matching the line table.
      Dwarf_Die* scopes = nullptr;
      const int count = dwarf_getscopes(&unit, pc, &scopes);
      for (int i = 0; i < count; ++i) {
        const int tag = dwarf_tag(&scopes[i]);
        if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
          out.function = function_name(&scopes[i]);
          break;
        }
      }
      std::free(scopes);
    }
    if (out.function.empty()) out.function = demangle(dwfl_module_addrname(module_, address));
  }

 private:
  Dwfl* dwfl_ = nullptr;
  Dwfl_Module* module_ = nullptr;
  Dwarf_Addr bias_ = 0;
};

}  // namespace

void resolve_locations(std::vector<CodeLocation*>& locations) {
  try {
    std::map<std::string, std::vector<CodeLocation*>> by_module;
    for (CodeLocation* location : locations) {
      if (location == nullptr) continue;
      clear_source_line(*location);
      by_module[location->module].push_back(location);
    }
    for (auto& [path, module_locations] : by_module) {
      DebugInfo debug_info(path);
      if (!debug_info.ok()) continue;
      const std::string build_id = debug_info.build_id();
      for (CodeLocation* location : module_locations) {
        // A rebuilt file no longer describes the code that ran.
        if (!location->build_id.empty() && location->build_id != build_id) continue;
        debug_info.resolve(location->offset, *location);
      }
    }
  } catch (...) {
    // Out of memory: whatever is resolved stays, the rest is left empty.
  }
}

bool resolve_offset(const std::string& module, std::uint64_t offset, CodeLocation& out) {
  try {
    out.module = module;
    out.offset = offset;
    out.build_id.clear();
    clear_source_line(out);
    DebugInfo debug_info(module);
    if (!debug_info.ok()) return false;
    out.build_id = debug_info.build_id();
    debug_info.resolve(offset, out);
    return !out.file.empty();
  } catch (...) {
    return false;
  }
}

}  // namespace ompscale::regions::tool

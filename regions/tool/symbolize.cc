#include "regions/tool/symbolize.h"

#include <cxxabi.h>
#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <link.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

namespace ompscale::regions::tool {
namespace {

// ---------------------------------------------------------------------------------------------
// Capture: loaded objects.

using ProgramHeader = ElfW(Phdr);

// The loaded object holding an address, as dl_iterate_phdr describes it.
struct LoadedObject {
  std::uintptr_t address = 0;  // input: the address looked for
  bool found = false;
  bool main_program = false;  // the first object listed is the executable (its name is "")
  std::uintptr_t bias = 0;    // load bias: 0 for non-PIE executables
  const ProgramHeader* phdr = nullptr;
  ElfW(Half) phnum = 0;
  std::string name;  // as the loader recorded it
  int index = 0;
};

int find_object(dl_phdr_info* info, size_t /*size*/, void* data) {
  auto& object = *static_cast<LoadedObject*>(data);
  const int index = object.index++;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ProgramHeader& segment = info->dlpi_phdr[i];
    if (segment.p_type != PT_LOAD) continue;
    const std::uintptr_t start = info->dlpi_addr + segment.p_vaddr;
    if (object.address >= start && object.address - start < segment.p_memsz) {
      object.found = true;
      object.main_program = index == 0;
      object.bias = info->dlpi_addr;
      object.phdr = info->dlpi_phdr;
      object.phnum = info->dlpi_phnum;
      object.name = info->dlpi_name != nullptr ? info->dlpi_name : "";
      return 1;
    }
  }
  return 0;
}

std::string to_hex(const unsigned char* bytes, std::size_t size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex(2 * size, '0');
  for (std::size_t i = 0; i < size; ++i) {
    hex[2 * i] = kDigits[bytes[i] >> 4];
    hex[2 * i + 1] = kDigits[bytes[i] & 0xf];
  }
  return hex;
}

// The NT_GNU_BUILD_ID note among `size` bytes of notes aligned to `align` (4 or 8), or "".
std::string build_id_in_notes(const unsigned char* notes, std::size_t size, std::size_t align) {
  if (align != 8) align = 4;
  const auto aligned = [align](std::size_t n) { return (n + align - 1) & ~(align - 1); };
  while (size >= sizeof(ElfW(Nhdr))) {
    ElfW(Nhdr) header;
    std::memcpy(&header, notes, sizeof(header));
    const std::size_t name_at = sizeof(header);
    const std::size_t desc_at = name_at + aligned(header.n_namesz);
    if (desc_at > size || header.n_descsz > size - desc_at) break;
    if (header.n_type == NT_GNU_BUILD_ID && header.n_namesz == 4 &&
        std::memcmp(notes + name_at, "GNU", 4) == 0) {
      return to_hex(notes + desc_at, header.n_descsz);
    }
    const std::size_t next = desc_at + aligned(header.n_descsz);
    if (next > size) break;
    notes += next;
    size -= next;
  }
  return "";
}

// The build id from the object's PT_NOTE segments, which the loader mapped with the object.
std::string build_id_in_memory(const LoadedObject& object) {
  for (ElfW(Half) i = 0; i < object.phnum; ++i) {
    const ProgramHeader& segment = object.phdr[i];
    if (segment.p_type != PT_NOTE) continue;
    const auto* notes = reinterpret_cast<const unsigned char*>(object.bias + segment.p_vaddr);
    std::string id = build_id_in_notes(notes, segment.p_memsz, segment.p_align);
    if (!id.empty()) return id;
  }
  return "";
}

// Absolute path of an object: the executable through /proc/self/exe (the loader records no name
// for it), libraries through realpath (dlopen may have been given a relative path). Objects
// without a file (the vDSO) keep their recorded name.
std::string absolute_path(const LoadedObject& object) {
  if (object.main_program) {
    char buffer[PATH_MAX];
    const ssize_t length = readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
    return length > 0 ? std::string(buffer, length) : object.name;
  }
  char* resolved = realpath(object.name.c_str(), nullptr);
  if (resolved == nullptr) return object.name;
  std::string path(resolved);
  std::free(resolved);
  return path;
}

struct Module {
  const ProgramHeader* phdr;  // with bias and name, identifies one loaded object
  std::uintptr_t bias;
  std::string name;
  std::string path;
  std::string build_id;
};

// Never destroyed: finalize runs after static destructors.
struct ModuleCache {
  std::mutex mutex;
  std::vector<Module> modules;
};

ModuleCache& module_cache() {
  static ModuleCache* const cache = new ModuleCache;
  return *cache;
}

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

void clear_source(CodeLocation& location) {
  location.file.clear();
  location.line = 0;
  location.function.clear();
}

}  // namespace

bool capture_code_location(const void* return_address, CodeLocation& out) {
  if (return_address == nullptr) return false;
  try {
    LoadedObject object;
    object.address = reinterpret_cast<std::uintptr_t>(return_address) - 1;
    dl_iterate_phdr(find_object, &object);
    if (!object.found) return false;

    ModuleCache& cache = module_cache();
    const std::lock_guard<std::mutex> lock(cache.mutex);
    const Module* module = nullptr;
    for (const Module& known : cache.modules) {
      if (known.phdr == object.phdr && known.bias == object.bias && known.name == object.name) {
        module = &known;
        break;
      }
    }
    if (module == nullptr) {
      cache.modules.push_back({object.phdr, object.bias, object.name, absolute_path(object),
                               build_id_in_memory(object)});
      module = &cache.modules.back();
    }
    out.module = module->path;
    out.build_id = module->build_id;
    out.offset = object.address - object.bias;
    clear_source(out);
    return true;
  } catch (...) {
    return false;
  }
}

void resolve_locations(std::vector<CodeLocation*>& locations) {
  try {
    std::map<std::string, std::vector<CodeLocation*>> by_module;
    for (CodeLocation* location : locations) {
      if (location == nullptr) continue;
      clear_source(*location);
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
    clear_source(out);
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

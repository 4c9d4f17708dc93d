#include "regions/ompt/symbolize.h"

#include <cxxabi.h>
#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <string_view>

namespace ompscale::regions::ompt {
namespace {

// ---------------------------------------------------------------------------------------------
// Resolution: DWARF through libdwfl.

std::string fmt_inlined(const std::string& file, Dwarf_Word line) {
  return ", inlined at " + (file.empty() ? std::string("line ") : file + ":") +
         std::to_string(line);
}

// A function's name in a label is at most this long (docs/ompscan-report.md).
constexpr std::size_t kLongestFunction = 80;

// `name` (a qualified C++ name) in at most `longest` characters, losing what tells least: the
// leading namespaces first, then template arguments (outermost lists become "<...>"), then the
// end ("..."). "ns1::ns2::Product<double, long>::operator()" in 30: "Product<...>::operator()".
std::string fit(std::string name, std::size_t longest) {
  const auto leading_scope = [&]() -> std::size_t {  // end of "ns::" before any template list
    const std::size_t scope = name.find("::");
    return scope != std::string::npos && scope < name.find('<') ? scope + 2 : 0;
  };
  while (name.size() > longest && leading_scope() > 0) name.erase(0, leading_scope());
  for (std::size_t open = name.find('<'); name.size() > longest && open != std::string::npos;
       open = name.find('<', open + 1)) {
    int depth = 0;
    std::size_t close = open;
    for (; close < name.size(); ++close) {
      if (name[close] == '<') ++depth;
      if (name[close] == '>' && --depth == 0) break;
    }
    if (close >= name.size() || close - open <= 4) continue;  // unbalanced, or "<...>" already
    name.replace(open + 1, close - open - 1, "...");
  }
  return name.size() <= longest ? name : name.substr(0, longest - 3) + "...";
}

std::string demangle(const char* name) {
  if (name == nullptr) return "";
  int status = 0;
  char* demangled = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || demangled == nullptr) return name;
  std::string result(demangled);
  std::free(demangled);
  return result;
}

// A demangled function name without its return type, parameter list and what follows it
// (" const", " [clone ._omp_fn.0]"), templates kept: labels name a function, they need not
// repeat its signature (inlined C++ code gave labels of 250 characters), and cut at 80.
std::string short_name(std::string name) {
  constexpr std::string_view kAnonymous = "(anonymous namespace)";
  constexpr char kMark = '\x01';  // stands for kAnonymous while the parentheses are counted
  for (std::size_t at = name.find(kAnonymous); at != std::string::npos;
       at = name.find(kAnonymous, at)) {
    name.replace(at, kAnonymous.size(), 1, kMark);
  }
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '<') ++depth;
    if (c == '>') --depth;
    if (depth == 0 && c == ' ' && name.compare(i, 9, " operator") != 0) start = i + 1;
    // The call operator's own parentheses are part of its name.
    if (c == '(' && i >= 8 && name.compare(i - 8, 10, "operator()") == 0) {
      ++i;
      continue;
    }
    if (depth == 0 && c == '(' && i > start) {
      name = name.substr(start, i - start);
      break;
    }
  }
  std::string out;
  for (const char c : name) out += c == kMark ? std::string(kAnonymous) : std::string(1, c);
  return fit(out, kLongestFunction);
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
    if (std::strncmp(name, "_Z", 2) == 0) return short_name(demangle(name));
    Dwarf_Die declaration;
    // GCC names template instances with their arguments ("f<std::vector<...> >"): cut too.
    return fit((declaration_of(die, declaration) ? enclosing_scopes(&declaration)
                                                 : enclosing_scopes(die)) +
                   name,
               kLongestFunction);
  }
  Dwarf_Attribute attribute;
  for (const unsigned int name : {DW_AT_linkage_name, DW_AT_MIPS_linkage_name}) {
    const char* linkage = dwarf_formstring(dwarf_attr_integrate(die, name, &attribute));
    if (linkage != nullptr) return short_name(demangle(linkage));
  }
  return "";
}

// The nearest line above 0 at or before `pc`: compilers mark some instructions (the set-up of a
// runtime call) with line 0, "no source line".
int nearest_line(Dwarf_Die* unit, Dwarf_Addr pc, const char*& file) {
  Dwarf_Lines* lines = nullptr;
  std::size_t count = 0;
  if (dwarf_getsrclines(unit, &lines, &count) != 0) return 0;
  Dwarf_Addr best_address = 0;
  int best = 0;
  for (std::size_t i = 0; i < count; ++i) {
    Dwarf_Line* line = dwarf_onesrcline(lines, i);
    Dwarf_Addr address = 0;
    int number = 0;
    if (line == nullptr || dwarf_lineaddr(line, &address) != 0 || address > pc ||
        dwarf_lineno(line, &number) != 0 || number <= 0 || address < best_address) {
      continue;
    }
    best_address = address;
    best = number;
    file = dwarf_linesrc(line, nullptr, nullptr);
  }
  return best;
}

// ", inlined at lulesh.cc:2072": where an inlined subroutine's code was inlined (its caller's
// line), which tells apart the copies of one region inlined at several places.
std::string inlined_at(Dwarf_Die* unit, Dwarf_Die* inlined) {
  Dwarf_Attribute attribute;
  Dwarf_Word line = 0, file = 0;
  if (dwarf_formudata(dwarf_attr(inlined, DW_AT_call_line, &attribute), &line) != 0 || line == 0) {
    return "";
  }
  std::string name;
  Dwarf_Files* files = nullptr;
  if (dwarf_formudata(dwarf_attr(inlined, DW_AT_call_file, &attribute), &file) == 0 &&
      dwarf_getsrcfiles(unit, &files, nullptr) == 0) {
    if (const char* path = dwarf_filesrc(files, file, nullptr, nullptr)) {
      name = path;
      name = name.substr(name.rfind('/') + 1);
    }
  }
  return fmt_inlined(name, line);
}

// The innermost subprogram or inlined subroutine of `unit` whose code covers `pc`, found by walking
// the unit's tree (into namespaces, classes and lexical blocks). libdw's dwarf_getscopes gives up
// on some units clang 14 writes in DWARF 5 ("no address value": every region of a templated CG
// solver got its caller's name, without the call site), while dwarf_haspc on each DIE works.
bool innermost_function(Dwarf_Die* unit, Dwarf_Addr pc, Dwarf_Die& found) {
  bool any = false;
  Dwarf_Die scope = *unit;
  for (int depth = 0; depth < 64; ++depth) {  // nesting deeper than this is not code
    Dwarf_Die child;
    if (dwarf_child(&scope, &child) != 0) break;
    bool descended = false;
    do {
      const int tag = dwarf_tag(&child);
      const bool code = tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
                        tag == DW_TAG_lexical_block;
      const bool container = tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
                             tag == DW_TAG_structure_type || tag == DW_TAG_union_type;
      if (code && dwarf_haspc(&child, pc) <= 0) continue;
      if (!code && !container) continue;
      if (container) {
        // A definition inside a namespace or class (GCC nests them): look inside, and go on with
        // the siblings when nothing there covers pc.
        Dwarf_Die inner;
        if (innermost_function(&child, pc, inner)) {
          found = inner;
          return true;
        }
        continue;
      }
      if (tag != DW_TAG_lexical_block) {
        found = child;
        any = true;
      }
      scope = child;
      descended = true;
      break;
    } while (dwarf_siblingof(&child, &child) == 0);
    if (!descended) break;
  }
  return any;
}

// "name, inlined at file:line", at most kLongestFunction characters: the name is shortened
// (fit()) before the call site is, which tells the copies of one region apart.
std::string with_call_site(const std::string& name, const std::string& call_site) {
  if (name.size() + call_site.size() <= kLongestFunction) return name + call_site;
  const std::size_t room =
      kLongestFunction > call_site.size() + 16 ? kLongestFunction - call_site.size() : 16;
  return fit(fit(name, room) + call_site, kLongestFunction);
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
          if (number == 0) number = nearest_line(&unit, pc, file);
          out.file = file != nullptr ? file : "";
          out.line = number;
        }
      }
      // The innermost function whose code this is: an inlined one names where it was inlined.
      Dwarf_Die function;
      if (innermost_function(&unit, pc, function)) {
        out.function = function_name(&function);
        if (dwarf_tag(&function) == DW_TAG_inlined_subroutine) {
          out.function = with_call_site(out.function, inlined_at(&unit, &function));
        }
      }
    }
    if (out.function.empty()) {
      out.function = short_name(demangle(dwfl_module_addrname(module_, address)));
    }
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

}  // namespace ompscale::regions::ompt

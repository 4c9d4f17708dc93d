#include "regions/ompt/code_location.h"

#include <elf.h>
#include <link.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

namespace ompscale::regions::ompt {
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
  // A buffer of its own: realpath(name, nullptr) would allocate on the application's heap.
  char resolved[PATH_MAX];
  if (realpath(object.name.c_str(), resolved) == nullptr) return object.name;
  return resolved;
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
    clear_source_line(out);
    return true;
  } catch (...) {
    return false;
  }
}

}  // namespace ompscale::regions::ompt

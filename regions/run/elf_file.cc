#include "regions/run/elf_file.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/error.h"

namespace ompscale::regions {

namespace {

// Owns the descriptor and the libelf handle for one read.
class ElfHandle {
 public:
  explicit ElfHandle(const std::string& path) : path_(path) {
    fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw InputError(path, 0, std::string("cannot open: ") + std::strerror(errno));
    elf_version(EV_CURRENT);
    elf_ = elf_begin(fd_, ELF_C_READ, nullptr);
  }
  ~ElfHandle() {
    if (elf_ != nullptr) elf_end(elf_);
    close(fd_);
  }
  ElfHandle(const ElfHandle&) = delete;
  ElfHandle& operator=(const ElfHandle&) = delete;

  Elf* get() const { return elf_; }
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(path_, 0, what + ": " + elf_errmsg(-1));
  }

 private:
  std::string path_;
  int fd_ = -1;
  Elf* elf_ = nullptr;
};

const char* string_at(Elf* elf, std::size_t section, std::size_t offset) {
  const char* text = elf_strptr(elf, section, offset);
  return text != nullptr ? text : "";
}

void read_dynamic(const ElfHandle& handle, Elf_Scn* scn, const GElf_Shdr& shdr,
                  ElfDynamicInfo& info) {
  Elf_Data* data = elf_getdata(scn, nullptr);
  if (data == nullptr) handle.fail("cannot read .dynamic");
  const std::size_t count = shdr.sh_entsize > 0 ? shdr.sh_size / shdr.sh_entsize : 0;
  for (std::size_t i = 0; i < count; ++i) {
    GElf_Dyn dyn;
    if (gelf_getdyn(data, static_cast<int>(i), &dyn) == nullptr) break;
    if (dyn.d_tag == DT_NULL) break;
    if (dyn.d_tag == DT_NEEDED)
      info.needed.emplace_back(string_at(handle.get(), shdr.sh_link, dyn.d_un.d_val));
  }
}

// Visits up to `count` entries of a version section chained by byte offsets, starting at
// `offset`: `get` reads the entry at an offset (libelf's gelf_getverneed and the like), `next`
// gives the step to the following one (0 after the last). A failed read means a broken section.
template <class Entry, class Get, class Next, class Visit>
void for_each_chained(const ElfHandle& handle, const char* section, std::size_t count,
                      std::size_t offset, Get get, Next next, Visit visit) {
  for (std::size_t i = 0; i < count; ++i) {
    Entry entry;
    if (get(static_cast<int>(offset), &entry) == nullptr)
      handle.fail(std::string("broken ") + section);
    visit(entry, offset);
    if (next(entry) == 0) break;
    offset += next(entry);
  }
}

void read_version_needs(const ElfHandle& handle, Elf_Scn* scn, const GElf_Shdr& shdr,
                        ElfDynamicInfo& info) {
  Elf_Data* data = elf_getdata(scn, nullptr);
  if (data == nullptr) handle.fail("cannot read .gnu.version_r");
  const auto name = [&](std::size_t offset) {
    return string_at(handle.get(), shdr.sh_link, offset);
  };
  for_each_chained<GElf_Verneed>(
      handle, ".gnu.version_r", shdr.sh_info, 0,
      [&](int at, GElf_Verneed* need) { return gelf_getverneed(data, at, need); },
      [](const GElf_Verneed& need) { return need.vn_next; },
      [&](const GElf_Verneed& need, std::size_t offset) {
        std::vector<std::string>& versions = info.version_needs[name(need.vn_file)];
        for_each_chained<GElf_Vernaux>(
            handle, ".gnu.version_r", need.vn_cnt, offset + need.vn_aux,
            [&](int at, GElf_Vernaux* aux) { return gelf_getvernaux(data, at, aux); },
            [](const GElf_Vernaux& aux) { return aux.vna_next; },
            [&](const GElf_Vernaux& aux, std::size_t) {
              versions.emplace_back(name(aux.vna_name));
            });
      });
}

void read_version_definitions(const ElfHandle& handle, Elf_Scn* scn, const GElf_Shdr& shdr,
                              ElfDynamicInfo& info) {
  Elf_Data* data = elf_getdata(scn, nullptr);
  if (data == nullptr) handle.fail("cannot read .gnu.version_d");
  for_each_chained<GElf_Verdef>(
      handle, ".gnu.version_d", shdr.sh_info, 0,
      [&](int at, GElf_Verdef* def) { return gelf_getverdef(data, at, def); },
      [](const GElf_Verdef& def) { return def.vd_next; },
      [&](const GElf_Verdef& def, std::size_t offset) {
        // The first auxiliary entry names the version; further ones name its parents.
        if ((def.vd_flags & VER_FLG_BASE) != 0 || def.vd_cnt == 0) return;
        GElf_Verdaux aux;
        if (gelf_getverdaux(data, static_cast<int>(offset + def.vd_aux), &aux) == nullptr)
          handle.fail("broken .gnu.version_d");
        info.version_definitions.emplace_back(string_at(handle.get(), shdr.sh_link, aux.vda_name));
      });
}

}  // namespace

bool ElfDynamicInfo::needs(const std::string& soname) const {
  return std::find(needed.begin(), needed.end(), soname) != needed.end();
}

std::optional<ElfDynamicInfo> read_elf_dynamic_info(const std::string& path) {
  const ElfHandle handle(path);
  if (handle.get() == nullptr || elf_kind(handle.get()) != ELF_K_ELF) return std::nullopt;

  ElfDynamicInfo info;
  std::size_t segments = 0;
  if (elf_getphdrnum(handle.get(), &segments) != 0) handle.fail("cannot read program headers");
  for (std::size_t i = 0; i < segments; ++i) {
    GElf_Phdr phdr;
    if (gelf_getphdr(handle.get(), static_cast<int>(i), &phdr) != nullptr &&
        phdr.p_type == PT_INTERP)
      info.has_interpreter = true;
  }
  for (Elf_Scn* scn = elf_nextscn(handle.get(), nullptr); scn != nullptr;
       scn = elf_nextscn(handle.get(), scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr) handle.fail("cannot read a section header");
    switch (shdr.sh_type) {
      case SHT_DYNAMIC:
        read_dynamic(handle, scn, shdr, info);
        break;
      case SHT_GNU_verneed:
        read_version_needs(handle, scn, shdr, info);
        break;
      case SHT_GNU_verdef:
        read_version_definitions(handle, scn, shdr, info);
        break;
      default:
        break;
    }
  }
  return info;
}

}  // namespace ompscale::regions

#include "regions/tool/loop_schedule.h"

#include <dlfcn.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <initializer_list>

namespace ompscale::regions::tool {
namespace {

bool read_memory(std::uintptr_t address, void* out, std::size_t size) {
  iovec local{out, size};
  iovec remote{reinterpret_cast<void*>(address), size};
  return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == static_cast<ssize_t>(size);
}

bool read_u64(std::uintptr_t address, std::uintptr_t& value) {
  std::uint64_t raw = 0;
  if (!read_memory(address, &raw, sizeof(raw))) return false;
  value = static_cast<std::uintptr_t>(raw);
  return true;
}

std::int32_t rel32(const unsigned char* bytes) {
  std::int32_t value = 0;
  std::memcpy(&value, bytes, sizeof(value));
  return value;
}

// The target of the call instruction ending at `return_address`; 0 when it is not a call.
std::uintptr_t call_target(std::uintptr_t return_address) {
  unsigned char code[6];
  if (!read_memory(return_address - sizeof(code), code, sizeof(code))) return 0;
  if (code[1] == 0xe8) return return_address + rel32(code + 2);  // call rel32
  std::uintptr_t target = 0;
  if (code[0] == 0xff && code[1] == 0x15 &&  // call *rel32(%rip)
      read_u64(return_address + rel32(code + 2), target)) {
    return target;
  }
  return 0;
}

// Follows a PLT stub (jmp *GOT(%rip), with or without endbr64 and bnd prefixes) to the function
// its GOT slot holds; other code is returned as it is.
std::uintptr_t through_plt(std::uintptr_t address) {
  unsigned char code[11];
  if (!read_memory(address, code, sizeof(code))) return address;
  std::size_t at = 0;
  if (code[0] == 0xf3 && code[1] == 0x0f && code[2] == 0x1e && code[3] == 0xfa) at = 4;  // endbr64
  if (code[at] == 0xf2) ++at;                                                            // bnd
  std::uintptr_t function = 0;
  if (code[at] == 0xff && code[at + 1] == 0x25 &&
      read_u64(address + at + 6 + rel32(code + at + 2), function)) {
    return function;
  }
  return address;
}

}  // namespace

const char* schedule_of_function(const char* name) {
  if (name == nullptr) return "unknown";
  if (std::strstr(name, "for_static_init") != nullptr) return "static";
  if (std::strncmp(name, "__kmpc_dispatch_init", 20) == 0) return "dispatch";
  if (std::strncmp(name, "GOMP_", 5) != 0 || std::strstr(name, "loop") == nullptr) {
    return "unknown";
  }
  for (const char* schedule : {"static", "dynamic", "guided", "runtime", "auto"}) {
    if (std::strstr(name, schedule) != nullptr) return schedule;
  }
  return "unknown";
}

const char* loop_schedule(const void* codeptr) {
  const auto address = reinterpret_cast<std::uintptr_t>(codeptr);
  if (address < 16) return "unknown";
  const std::uintptr_t target = call_target(address);
  if (target == 0) return "unknown";
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(through_plt(target)), &info) == 0) return "unknown";
  return schedule_of_function(info.dli_sname);
}

}  // namespace ompscale::regions::tool

#include "regions/ompt/loop_schedule.h"

#include <dlfcn.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <initializer_list>

namespace ompscale::regions::ompt {
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

// The start of the call instruction that returns to `return_address` (5 or 6 bytes), or 0.
std::uintptr_t call_start(std::uintptr_t return_address) {
  unsigned char code[6];
  if (!read_memory(return_address - sizeof(code), code, sizeof(code))) return 0;
  if (code[1] == 0xe8) return return_address - 5;
  if (code[0] == 0xff && code[1] == 0x15) return return_address - 6;
  return 0;
}

std::uint32_t u32(const unsigned char* bytes) {
  std::uint32_t value = 0;
  std::memcpy(&value, bytes, sizeof(value));
  return value;
}

}  // namespace

const char* sched_type_name(std::uint32_t value) {
  switch (value & ~((1u << 29) | (1u << 30))) {  // without (non)monotonic modifiers
    case 33:                                     // static_chunked
    case 34:                                     // static
    case 40:                                     // static_greedy
    case 41:                                     // static_balanced
    case 45:                                     // static_balanced_chunked
    case 65:                                     // ordered static_chunked
    case 66:                                     // ordered static
      return "static";
    case 35:  // dynamic_chunked
    case 44:  // static_steal: dynamic with chunks stolen from static shares
    case 67:  // ordered dynamic
      return "dynamic";
    case 36:  // guided_chunked
    case 42:  // guided_iterative_chunked
    case 43:  // guided_analytical_chunked
    case 46:  // guided_simd
    case 68:  // ordered guided
      return "guided";
    case 37:  // runtime
    case 47:  // runtime_simd
    case 69:  // ordered runtime
      return "runtime";
    case 38:  // auto
    case 70:  // ordered auto
      return "auto";
    default:
      return nullptr;
  }
}

LoopSchedule decode_dispatch(const unsigned char* code, std::size_t size) {
  LoopSchedule out;
  out.schedule = "dispatch";
  std::size_t at = size;  // the last mov $imm32, %edx (ba imm32) naming a sched_type
  for (std::size_t i = 0; i + 5 <= size; ++i) {
    if (code[i] == 0xba && sched_type_name(u32(code + i + 1)) != nullptr) at = i;
  }
  if (at == size) return out;
  out.schedule = sched_type_name(u32(code + at + 1));
  // The chunk: the last constant pushed or stored at (%rsp) before the call (the stack argument
  // is set up before or after edx). runtime and auto take theirs from elsewhere.
  if (std::strcmp(out.schedule, "runtime") == 0 || std::strcmp(out.schedule, "auto") == 0) {
    return out;
  }
  for (std::size_t i = 0; i < size; ++i) {
    if (i >= at && i < at + 5) continue;                                  // the mov to edx itself
    if (code[i] == 0x6a && i + 2 <= size) out.chunk = code[i + 1];        // push $imm8
    if (code[i] == 0x68 && i + 5 <= size) out.chunk = u32(code + i + 1);  // push $imm32
    const std::size_t mov = code[i] == 0x48 ? i + 1 : i;                  // movq: REX.W prefix
    if (mov + 7 <= size && code[mov] == 0xc7 && code[mov + 1] == 0x04 && code[mov + 2] == 0x24) {
      out.chunk = u32(code + mov + 3);  // movl/movq $imm32, (%rsp)
      i = mov + 6;
    }
  }
  return out;
}

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

LoopSchedule loop_schedule_of(const void* codeptr) {
  LoopSchedule out;
  const auto address = reinterpret_cast<std::uintptr_t>(codeptr);
  if (address < 64) return out;
  const std::uintptr_t target = call_target(address);
  if (target == 0) return out;
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(through_plt(target)), &info) == 0) return out;
  out.schedule = schedule_of_function(info.dli_sname);
  if (std::strcmp(out.schedule, "dispatch") != 0) return out;
  // The arguments are set up in the few instructions before the call.
  unsigned char code[48];
  const std::uintptr_t call = call_start(address);
  if (call != 0 && read_memory(call - sizeof(code), code, sizeof(code))) {
    out = decode_dispatch(code, sizeof(code));
  }
  return out;
}

const char* loop_schedule(const void* codeptr) {
  return loop_schedule_of(codeptr).schedule;
}

}  // namespace ompscale::regions::ompt

#include "microbench/driver/run_id.h"

#include <fmt/format.h>
#include <sys/random.h>

#include <cstdint>
#include <random>

namespace ompscale::microbench {
namespace {

// 32 bits from the kernel's generator (getrandom): no two processes share a state, whatever
// their start time or process id. Not std::random_device's default, which libstdc++ serves from
// the CPU's RDRAND where it exists: a virtual CPU's RDRAND can repeat values.
std::uint32_t kernel_random() {
  std::uint32_t value = 0;
  if (getrandom(&value, sizeof(value), 0) == static_cast<ssize_t>(sizeof(value))) return value;
  std::random_device urandom("/dev/urandom");
  return static_cast<std::uint32_t>(urandom());
}

}  // namespace

std::string new_run_id(std::string_view stamp) {
  std::string id = "r";
  for (const char c : stamp) {
    if (c != '-' && c != ':') id += c;
  }
  return id + fmt::format("-{:08x}", kernel_random());
}

}  // namespace ompscale::microbench

#include "microbench/driver/run_id.h"

#include <fmt/format.h>

#include <random>

namespace ompscale::microbench {

std::string new_run_id(std::string_view stamp) {
  std::string id = "r";
  for (const char c : stamp) {
    if (c != '-' && c != ':') id += c;
  }
  // std::random_device draws from the kernel (getrandom or /dev/urandom): no two processes share
  // a state, whatever their start time or process id.
  std::random_device entropy;
  return id + fmt::format("-{:08x}", static_cast<std::uint32_t>(entropy()));
}

}  // namespace ompscale::microbench

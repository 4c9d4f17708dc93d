// dynamic_chunks [n] [scale]: one loop of n elements (default 8192) with schedule(dynamic, 4096),
// whose element i costs scale (default 1) times in proportion to i: with the default n two chunks,
// one with three times the other's work, so the threads wait at the loop's barrier although the
// schedule is dynamic. clang passes the schedule
// to __kmpc_dispatch_init, which libomp 14 reports as a loop like any other: the advice must be
// smaller chunks, not schedule(dynamic). Prints a checksum independent of the thread count.
#include <cstdint>
#include <cstdio>

#include "app_util.h"

int main(int argc, char** argv) {
  const auto n = static_cast<std::int64_t>(apps::arg_or(argc, argv, 1, 8192));
  const auto scale = static_cast<std::int64_t>(apps::arg_or(argc, argv, 2, 1));
  std::uint64_t sum = 0;
#pragma omp parallel for schedule(dynamic, 4096) reduction(+ : sum)
  for (std::int64_t i = 0; i < n; ++i) {
    std::uint64_t x = static_cast<std::uint64_t>(i);
    for (std::int64_t r = 0; r < (2 + 400 * i / n) * scale; ++r) x = apps::mix(x);
    sum += x;
  }
  std::printf("dynamic_chunks %lld: checksum %llu\n", static_cast<long long>(n),
              static_cast<unsigned long long>(sum));
  return 0;
}

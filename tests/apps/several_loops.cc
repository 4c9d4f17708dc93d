// several_loops [n] [steps]: a solver whose time steps (default 20) run in ONE parallel region
// with several worksharing constructs, as mini-apps do: per step a balanced loop, an imbalanced
// static loop (element i costs in proportion to i, so the last thread gets the most), a single
// (one thread updates a residual, the others wait at its barrier) and a dynamic loop. A report
// with one row for the region hides which construct loses the time. Prints a checksum
// independent of the thread count.
#include <cstdint>
#include <cstdio>
#include <vector>

#include "app_util.h"

namespace {

std::uint64_t element(std::uint64_t i, std::uint64_t rounds) {
  std::uint64_t x = i;
  for (std::uint64_t r = 0; r < rounds; ++r) x = apps::mix(x);
  return x;
}

}  // namespace

int main(int argc, char** argv) {
  const auto n = static_cast<std::int64_t>(apps::arg_or(argc, argv, 1, 20000));
  const std::uint64_t steps = apps::arg_or(argc, argv, 2, 20);
  std::vector<std::uint64_t> a(static_cast<std::size_t>(n)), b(a.size()), c(a.size());
  std::uint64_t residual = 0;
#pragma omp parallel
  for (std::uint64_t step = 0; step < steps; ++step) {
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) a[i] = element(i + step, 8);
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) b[i] = element(a[i], 1 + 32 * i / n);
#pragma omp single
    {
      for (std::int64_t i = 0; i < n; ++i) residual ^= element(b[i], 2);
    }
#pragma omp for schedule(dynamic, 64)
    for (std::int64_t i = 0; i < n; ++i) c[i] = element(b[i] ^ residual, 8);
  }
  std::uint64_t checksum = residual;
  for (std::uint64_t x : c) checksum = apps::mix(checksum ^ x);
  std::printf("several_loops %lld x %llu: checksum %llu\n", static_cast<long long>(n),
              static_cast<unsigned long long>(steps), static_cast<unsigned long long>(checksum));
  return 0;
}

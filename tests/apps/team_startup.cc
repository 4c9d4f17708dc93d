// team_startup [n] [rounds]: runs one kernel (a balanced parallel loop over n elements, default
// 2M) at every team size from 1 to omp_get_max_threads(), and all of that `rounds` times (default
// 2), as programs that measure their own scaling do: one parallel region, executed with teams of
// several sizes. The runtime starts its threads at the first execution with a larger team
// (thread creation), and before the first region it initialises itself (libomp: the machine's
// topology, placing the initial thread on every CPU in turn). Neither is the application's serial
// code nor its imbalance: the report must call it team start-up. Prints a checksum independent of
// the thread count.
#include <omp.h>

#include <cstdint>
#include <cstdio>

#include "app_util.h"

namespace {

// Out of line, so every team size runs the same region (one code address).
[[gnu::noinline]] std::uint64_t kernel(std::int64_t n, int threads) {
  std::uint64_t sum = 0;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(+ : sum)
  for (std::int64_t i = 0; i < n; ++i) sum += apps::mix(static_cast<std::uint64_t>(i));
  return sum;
}

}  // namespace

int main(int argc, char** argv) {
  const auto n = static_cast<std::int64_t>(apps::arg_or(argc, argv, 1, 2000000));
  const int rounds = static_cast<int>(apps::arg_or(argc, argv, 2, 2));
  const int most = omp_get_max_threads();
  std::uint64_t sum = 0;
  int mismatches = 0;  // integer sums do not depend on the team size
  for (int round = 0; round < rounds; ++round) {
    for (int threads = 1; threads <= most; ++threads) {
      const std::uint64_t s = kernel(n, threads);
      if (round == 0 && threads == 1) sum = s;
      mismatches += s != sum ? 1 : 0;
    }
  }
  std::printf("team_startup %lld: sum %llu, %d mismatches\n", static_cast<long long>(n),
              static_cast<unsigned long long>(sum), mismatches);
  return mismatches == 0 ? 0 : 1;
}

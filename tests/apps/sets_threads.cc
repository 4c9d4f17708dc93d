// sets_threads [n]: sets its own thread count, whatever OMP_NUM_THREADS says, as XSBench does
// with omp_set_num_threads(omp_get_num_procs()): here always 2, so the runs `ompscan run` makes
// at 1 thread have teams of 2. Then a balanced parallel loop over n elements (default 2M).
// Prints a checksum independent of the thread count.
#include <omp.h>

#include <cstdint>
#include <cstdio>

#include "app_util.h"

int main(int argc, char** argv) {
  const auto n = static_cast<std::int64_t>(apps::arg_or(argc, argv, 1, 2000000));
  omp_set_num_threads(2);
  std::uint64_t sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
  for (std::int64_t i = 0; i < n; ++i) sum += apps::mix(static_cast<std::uint64_t>(i));
  std::printf("sets_threads %lld: checksum %llu\n", static_cast<long long>(n),
              static_cast<unsigned long long>(sum));
  return 0;
}

// nested [n]: an outer parallel region of 2 threads, each running an inner parallel region (two
// active levels) over its half of n hashed integers. The inner teams have the default size
// (OMP_NUM_THREADS). Prints a checksum independent of the team sizes.
#include <omp.h>

#include <cstdint>
#include <cstdio>

#include "app_util.h"

namespace {

// Work per element, so the inner regions are not dominated by fork/join.
std::uint64_t element(std::int64_t i) {
  std::uint64_t x = static_cast<std::uint64_t>(i);
  for (int round = 0; round < 16; ++round) x = apps::mix(x);
  return x;
}

std::uint64_t sum_half(std::int64_t begin, std::int64_t end) {
  std::uint64_t sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
  for (std::int64_t i = begin; i < end; ++i) sum += element(i);
  return sum;
}

}  // namespace

int main(int argc, char** argv) {
  const auto n = static_cast<std::int64_t>(apps::arg_or(argc, argv, 1, 2'000'000));
  omp_set_max_active_levels(2);
  std::uint64_t halves[2] = {0, 0};
#pragma omp parallel num_threads(2)
  {
    // A loop over the halves rather than one half per thread, in case the team is smaller.
    for (int half = omp_get_thread_num(); half < 2; half += omp_get_num_threads()) {
      halves[half] = sum_half(half * n / 2, (half + 1) * n / 2);
    }
  }
  std::printf("nested %lld: checksum %llu\n", static_cast<long long>(n),
              static_cast<unsigned long long>(halves[0] + halves[1]));
  return 0;
}

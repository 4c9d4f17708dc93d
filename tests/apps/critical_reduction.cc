// critical_reduction [n]: sums n hashed integers twice, in region 1 with a `critical` construct
// around every addition (serialized, contended) and in region 2 with `reduction(+)`. Prints both
// sums, which are equal and independent of the thread count.
#include <cstdint>
#include <cstdio>

#include "app_util.h"

namespace {

std::uint64_t sum_critical(std::int64_t n) {
  std::uint64_t sum = 0;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint64_t value = apps::mix(i);
#pragma omp critical
    sum += value;
  }
  return sum;
}

std::uint64_t sum_reduction(std::int64_t n) {
  std::uint64_t sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
  for (std::int64_t i = 0; i < n; ++i) sum += apps::mix(i);
  return sum;
}

}  // namespace

int main(int argc, char** argv) {
  const auto n = static_cast<std::int64_t>(apps::arg_or(argc, argv, 1, 300'000));
  const std::uint64_t critical = sum_critical(n);
  const std::uint64_t reduction = sum_reduction(n);
  std::printf("critical_reduction %lld: critical sum %llu, reduction sum %llu\n",
              static_cast<long long>(n), static_cast<unsigned long long>(critical),
              static_cast<unsigned long long>(reduction));
  return critical == reduction ? 0 : 1;
}

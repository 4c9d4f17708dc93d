// inlined_region [n]: a function template whose parallel region is inlined at two call sites
// (always_inline), as LULESH's CalcPressureForElems is: two regions with the same source line in
// one function, told apart only by where they were inlined. Their labels must say so (and stay
// short: the template's full signature is not a name). Prints a checksum independent of the
// thread count.
#include <cstdint>
#include <cstdio>
#include <vector>

#include "app_util.h"

namespace solver::detail {

template <typename Value>
[[gnu::always_inline]] inline Value accumulate_hashed(const std::vector<Value>& values,
                                                       const std::vector<std::uint64_t>& salts,
                                                       std::uint64_t rounds) {
  Value sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::uint64_t x = salts[i % salts.size()] ^ i;
    for (std::uint64_t r = 0; r < rounds; ++r) x = apps::mix(x);
    sum += values[i] * static_cast<Value>(x % 7);
  }
  return sum;
}

}  // namespace solver::detail

int main(int argc, char** argv) {
  const std::size_t n = apps::arg_or(argc, argv, 1, 200000);
  std::vector<double> values(n, 1.0);
  const std::vector<std::uint64_t> salts = {1, 2, 3};
  const double first = solver::detail::accumulate_hashed(values, salts, 4);
  const double second = solver::detail::accumulate_hashed(values, salts, 8);
  std::printf("inlined_region %zu: %.0f %.0f\n", n, first, second);
  return 0;
}

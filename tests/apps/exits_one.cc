// exits_one [n]: does its parallel work (a balanced loop over n elements, default 1M), prints
// its checksum and exits with status 1, as XSBench and RSBench do on any non-default input:
// the run is complete and so is the tool's profile.
#include <cstdint>
#include <cstdio>

#include "app_util.h"

int main(int argc, char** argv) {
  const auto n = static_cast<std::int64_t>(apps::arg_or(argc, argv, 1, 1000000));
  std::uint64_t sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
  for (std::int64_t i = 0; i < n; ++i) sum += apps::mix(static_cast<std::uint64_t>(i));
  std::printf("exits_one %lld: checksum %llu\n", static_cast<long long>(n),
              static_cast<unsigned long long>(sum));
  return 1;
}

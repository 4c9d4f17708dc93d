// manual_regions [n]: manual regions (regions/include/ompscan.h) around the phases of a small
// computation over n hashed integers:
//   "setup"          serial, outside any parallel region;
//   "solve"          containing "step" four times (nested manual regions), each step running a
//                    parallel loop (a parallel region whose parent is "step");
//   "per_thread"     opened and closed by every thread inside a parallel region (parent: that
//                    region).
// Works with or without the tool (the header resolves it at run time). Prints a checksum that
// does not depend on the thread count.
#include <omp.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "app_util.h"
#include "ompscan.h"

int main(int argc, char** argv) {
  const auto n = static_cast<std::int64_t>(apps::arg_or(argc, argv, 1, 400'000));
  constexpr int kSteps = 4;

  ompscan_region_begin("setup");
  std::vector<std::uint64_t> values(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) values[static_cast<std::size_t>(i)] = apps::mix(i);
  ompscan_region_end("setup");

  std::uint64_t checksum = 0;
  ompscan_region_begin("solve");
  for (int step = 0; step < kSteps; ++step) {
    ompscan_region_begin("step");
    std::uint64_t sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
    for (std::int64_t i = 0; i < n; ++i) {
      sum += apps::mix(values[static_cast<std::size_t>(i)] + static_cast<std::uint64_t>(step));
    }
    checksum += sum;
    ompscan_region_end("step");
  }
  ompscan_region_end("solve");

  const std::uint64_t trips = apps::spin_trips_for_ns(200'000);
#pragma omp parallel
  {
    ompscan_region_begin("per_thread");
    apps::spin(trips);
    ompscan_region_end("per_thread");
  }

  std::printf("manual_regions %lld: checksum %llu\n", static_cast<long long>(n),
              static_cast<unsigned long long>(checksum));
  return 0;
}

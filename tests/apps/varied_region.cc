// varied_region [count] [short_ns] [long_ns] [period]: executes one parallel region `count` times
// (default 700); every thread busy-waits short_ns nanoseconds (default 2,000), and every
// period-th execution (default 11) long_ns (default 60,000) instead, as LULESH's per-material
// regions take very different times in a cycle. The executions are short enough for the tool to
// sample by cost, but so varied that a sparse sample misses or doubles the long ones. Prints a
// checksum of the execution count on stdout, and the loop's own wall time ("loop_s=") on stderr.
#include <omp.h>

#include <cstdint>
#include <cstdio>

#include "app_util.h"

int main(int argc, char** argv) {
  const std::uint64_t count = apps::arg_or(argc, argv, 1, 700);
  const std::uint64_t short_ns = apps::arg_or(argc, argv, 2, 2'000);
  const std::uint64_t long_ns = apps::arg_or(argc, argv, 3, 60'000);
  const std::uint64_t period = apps::arg_or(argc, argv, 4, 11);
  const std::uint64_t short_trips = apps::spin_trips_for_ns(short_ns);
  const std::uint64_t long_trips = apps::spin_trips_for_ns(long_ns);
  std::uint64_t checksum = 0;
  const double start = omp_get_wtime();
  for (std::uint64_t execution = 0; execution < count; ++execution) {
    const std::uint64_t trips = period > 0 && execution % period == 0 ? long_trips : short_trips;
#pragma omp parallel
    {
      apps::spin(trips);
      if (omp_get_thread_num() == 0) checksum += apps::mix(execution);
    }
  }
  std::fprintf(stderr, "loop_s=%.9f\n", omp_get_wtime() - start);
  std::printf("varied_region %llu executions: checksum %llu\n",
              static_cast<unsigned long long>(count), static_cast<unsigned long long>(checksum));
  return 0;
}

// many_regions [count] [work_ns]: runs `count` parallel regions in which every thread busy-waits
// about work_ns nanoseconds (a calibrated trip count, computed once), for measuring the tool's
// per-region overhead. Prints a checksum of the region count, updated by thread 0 of each region.
// The default count keeps a run under 1 s at 2 threads on an idle 2-core machine; 1,000,000 takes
// about 3 s (gcc) and 4.5 s (clang) there, and far longer with other load (libomp's barriers
// degrade badly when its threads are descheduled), so benchmarks pass their count.
#include <omp.h>

#include <cstdint>
#include <cstdio>

#include "app_util.h"

int main(int argc, char** argv) {
  const std::uint64_t count = apps::arg_or(argc, argv, 1, 200'000);
  const std::uint64_t work_ns = apps::arg_or(argc, argv, 2, 2'000);
  const std::uint64_t trips = apps::spin_trips_for_ns(work_ns);
  std::uint64_t checksum = 0;
  for (std::uint64_t region = 0; region < count; ++region) {
#pragma omp parallel
    {
      apps::spin(trips);
      if (omp_get_thread_num() == 0) checksum += apps::mix(region);
    }
  }
  std::printf("many_regions %llu x %llu ns: checksum %llu\n",
              static_cast<unsigned long long>(count), static_cast<unsigned long long>(work_ns),
              static_cast<unsigned long long>(checksum));
  return 0;
}

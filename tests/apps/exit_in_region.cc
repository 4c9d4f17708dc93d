// exit_in_region: thread 0 calls exit(3) from inside a parallel region after some work, while the
// other threads wait at the region's end: the process ends with the region still open, which the
// tool must survive (its finalization runs from exit). The exit status is 3.
#include <omp.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "app_util.h"

int main() {
  // A completed region first, so the profile has something to report.
  std::uint64_t sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
  for (std::int64_t i = 0; i < 100'000; ++i) sum += apps::mix(i);
  std::printf("exit_in_region: checksum %llu\n", static_cast<unsigned long long>(sum));
#pragma omp parallel
  {
    apps::spin(apps::spin_trips_for_ns(10'000'000));
    if (omp_get_thread_num() == 0) {
      std::printf("exit_in_region: exiting with status 3\n");
      std::exit(3);
    }
  }
  return 0;
}

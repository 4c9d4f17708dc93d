// sampled_region [count] [work_ns] [stall_ms]: executes one parallel region `count` times
// (default 10,000) in which every thread busy-waits about work_ns nanoseconds (default 3,000);
// in execution 10, thread 0 also sleeps stall_ms milliseconds (default 20), as a preempted
// thread would. The region is short enough for the tool to sample it, and the stalled execution
// is among the first, which are always measured: it must count once, not for the many executions
// left unmeasured. Prints a checksum of the execution count on stdout, and the loop's own wall
// time ("loop_s=") on stderr.
#include <omp.h>
#include <time.h>

#include <cstdint>
#include <cstdio>

#include "app_util.h"

int main(int argc, char** argv) {
  const std::uint64_t count = apps::arg_or(argc, argv, 1, 10'000);
  const std::uint64_t work_ns = apps::arg_or(argc, argv, 2, 3'000);
  const std::uint64_t stall_ms = apps::arg_or(argc, argv, 3, 20);
  const std::uint64_t trips = apps::spin_trips_for_ns(work_ns);
  std::uint64_t checksum = 0;
  const double start = omp_get_wtime();
  for (std::uint64_t execution = 0; execution < count; ++execution) {
#pragma omp parallel
    {
      apps::spin(trips);
      if (omp_get_thread_num() == 0) {
        checksum += apps::mix(execution);
        if (execution == 10) {
          const timespec stall{static_cast<time_t>(stall_ms / 1000),
                               static_cast<long>(stall_ms % 1000) * 1'000'000};
          nanosleep(&stall, nullptr);
        }
      }
    }
  }
  std::fprintf(stderr, "loop_s=%.9f\n", omp_get_wtime() - start);
  std::printf("sampled_region %llu executions: checksum %llu\n",
              static_cast<unsigned long long>(count), static_cast<unsigned long long>(checksum));
  return 0;
}

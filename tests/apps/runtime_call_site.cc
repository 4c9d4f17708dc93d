// runtime_call_site [n] [steps]: a solver step in one parallel region whose last statement is an
// explicit barrier after a nowait loop, as multigrid kernels write it. GCC compiles a call that
// ends the outlined region body as a tail call (jmp GOMP_barrier), so the runtime sees a return
// address inside itself (the code that called the region body: GOMP_parallel on the initial
// thread), not in the application: the report must not list a "barrier at libomp.so.5+0x...",
// but say where it is in the application and that the runtime reported it. Prints a checksum
// independent of the thread count.
#include <cstdint>
#include <cstdio>
#include <vector>

#include "app_util.h"

int main(int argc, char** argv) {
  const auto n = static_cast<std::int64_t>(apps::arg_or(argc, argv, 1, 400000));
  const int steps = static_cast<int>(apps::arg_or(argc, argv, 2, 20));
  std::vector<std::uint64_t> cells(static_cast<std::size_t>(n), 1);
  for (int step = 0; step < steps; ++step) {
#pragma omp parallel
    {
#pragma omp for schedule(static) nowait
      for (std::int64_t i = 0; i < n; ++i) {
        cells[static_cast<std::size_t>(i)] = apps::mix(cells[static_cast<std::size_t>(i)] + step);
      }
#pragma omp barrier
    }
  }
  std::uint64_t sum = 0;
  for (const std::uint64_t c : cells) sum ^= c;
  std::printf("runtime_call_site %lld: checksum %llu\n", static_cast<long long>(n),
              static_cast<unsigned long long>(sum));
  return 0;
}

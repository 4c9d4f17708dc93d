// shared_start [n]: a balanced parallel loop over n elements (default 4M) whose first execution
// starts with every thread on the initial thread's CPU, as the kernel often places a new thread
// on its creator's CPU until it balances the load. The program makes that placement certain:
// at the start of the region each thread restricts itself to the CPU the initial thread ran on,
// computes the first half of its share there, then takes back the CPUs it had. A second execution
// runs as usual. Waiting for a CPU while the team starts is team start-up, not the loop's
// imbalance nor an unexplained loss. Prints a checksum independent of the thread count.
#include <omp.h>
#include <sched.h>

#include <cstdint>
#include <cstdio>

#include "app_util.h"

namespace {

std::uint64_t element(std::int64_t i) {
  std::uint64_t x = static_cast<std::uint64_t>(i);
  for (int round = 0; round < 16; ++round) x = apps::mix(x);
  return x;
}

// Gives the calling thread back the CPUs `own`. A thread other than the initial one first moves
// off `shared_cpu`, as the kernel would move it when it balances: taking back a mask that holds
// its current CPU would leave it where it is.
void leave_cpu(int shared_cpu, const cpu_set_t& own) {
  cpu_set_t others = own;
  CPU_CLR(shared_cpu, &others);
  if (omp_get_thread_num() != 0 && CPU_COUNT(&others) > 0) {
    sched_setaffinity(0, sizeof(others), &others);
  }
  sched_setaffinity(0, sizeof(own), &own);
}

// Each thread computes half of its share on `shared_cpu` alone (all threads at once), the rest
// on the CPUs it had; shared_cpu < 0: all of it as usual.
// Out of line, so both executions run the same region (one code address).
[[gnu::noinline]] std::uint64_t balanced(std::int64_t n, int shared_cpu) {
  std::uint64_t sum = 0;
#pragma omp parallel reduction(+ : sum)
  {
    cpu_set_t own;
    const bool pin = shared_cpu >= 0 && sched_getaffinity(0, sizeof(own), &own) == 0;
    if (pin) {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(shared_cpu, &one);
      sched_setaffinity(0, sizeof(one), &one);
    }
#pragma omp for schedule(static) nowait
    for (std::int64_t i = 0; i < n / 2; ++i) sum += element(i);
    if (pin) leave_cpu(shared_cpu, own);
#pragma omp for schedule(static)
    for (std::int64_t i = n / 2; i < n; ++i) sum += element(i);
  }
  return sum;
}

}  // namespace

int main(int argc, char** argv) {
  const auto n = static_cast<std::int64_t>(apps::arg_or(argc, argv, 1, 4'000'000));
  const std::uint64_t first = balanced(n, sched_getcpu());
  const std::uint64_t second = balanced(n, -1);
  std::printf("shared_start %lld: checksum %llu%s\n", static_cast<long long>(n),
              static_cast<unsigned long long>(first + second), first == second ? "" : " MISMATCH");
  return first == second ? 0 : 1;
}

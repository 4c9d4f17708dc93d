// tasks [n] [cutoff]: computes fib(n) as a recursive task tree created from a single thread: every
// call at or above the cutoff (default 16) spawns two tasks and waits for them (taskwait), calls
// below it recurse serially, so each leaf task computes fib(cutoff - 1) or fib(cutoff - 2)
// serially (cutoff 16: about 0.7 us here; each step up multiplies that by 1.6). Prints fib(n) and
// the number of explicit tasks the tree creates.
#include <cstdint>
#include <cstdio>

#include "app_util.h"

namespace {

int cutoff = 16;

std::uint64_t fib_serial(int n) {
  return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2);
}

std::uint64_t fib(int n) {
  if (n < cutoff) return fib_serial(n);
  std::uint64_t a = 0, b = 0;
#pragma omp task shared(a)
  a = fib(n - 1);
#pragma omp task shared(b)
  b = fib(n - 2);
#pragma omp taskwait
  return a + b;
}

// The tasks fib(n) creates: two per call at or above the cutoff.
std::uint64_t tasks_of(int n) {
  return n < cutoff ? 0 : 2 + tasks_of(n - 1) + tasks_of(n - 2);
}

}  // namespace

int main(int argc, char** argv) {
  const int n = static_cast<int>(apps::arg_or(argc, argv, 1, 36));
  cutoff = static_cast<int>(apps::arg_or(argc, argv, 2, 16));
  if (n > 90 || cutoff < 2) {
    std::fprintf(stderr, "%s: n must be at most 90 and the cutoff at least 2\n", argv[0]);
    return 2;
  }
  std::uint64_t result = 0;
#pragma omp parallel
#pragma omp single
  result = fib(n);
  std::printf("tasks fib(%d) = %llu, %llu tasks\n", n, static_cast<unsigned long long>(result),
              static_cast<unsigned long long>(tasks_of(n)));
  return 0;
}

// tasks [n]: computes fib(n) as a recursive task tree created from a single thread: every call
// above the cutoff spawns two tasks and waits for them (taskwait), calls below it recurse
// serially. Prints fib(n).
#include <cstdint>
#include <cstdio>

#include "app_util.h"

namespace {

constexpr int kCutoff = 16;

std::uint64_t fib_serial(int n) {
  return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2);
}

std::uint64_t fib(int n) {
  if (n < kCutoff) return fib_serial(n);
  std::uint64_t a = 0, b = 0;
#pragma omp task shared(a)
  a = fib(n - 1);
#pragma omp task shared(b)
  b = fib(n - 2);
#pragma omp taskwait
  return a + b;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = static_cast<int>(apps::arg_or(argc, argv, 1, 36));
  if (n > 90) {
    std::fprintf(stderr, "%s: n must be at most 90\n", argv[0]);
    return 2;
  }
  std::uint64_t result = 0;
#pragma omp parallel
#pragma omp single
  result = fib(n);
  std::printf("tasks fib(%d) = %llu\n", n, static_cast<unsigned long long>(result));
  return 0;
}

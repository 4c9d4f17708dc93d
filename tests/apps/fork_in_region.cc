// fork_in_region: runs a parallel region, then fork()s. The child runs serial code only (no
// OpenMP: a forked libgomp/libomp team is not usable in the child), prints its result and exits 0
// through exit(), so the tool's exit-time code runs in the child too. The parent runs another
// parallel region, waits for the child and prints a checksum; it fails when the child did.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "app_util.h"

namespace {

std::uint64_t parallel_sum(std::int64_t begin, std::int64_t end) {
  std::uint64_t sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
  for (std::int64_t i = begin; i < end; ++i) sum += apps::mix(i);
  return sum;
}

}  // namespace

int main() {
  constexpr std::int64_t kN = 1'000'000;
  const std::uint64_t before = parallel_sum(0, kN);
  std::fflush(stdout);  // or the child would flush the parent's buffered output a second time
  const pid_t child = fork();
  if (child < 0) {
    std::perror("fork");
    return 1;
  }
  if (child == 0) {
    std::uint64_t serial = 0;
    for (std::int64_t i = 0; i < kN; ++i) serial += apps::mix(i + kN);
    std::printf("fork_in_region child: checksum %llu\n", static_cast<unsigned long long>(serial));
    std::exit(0);
  }
  const std::uint64_t after = parallel_sum(kN, 2 * kN);
  int status = 0;
  if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "fork_in_region: child failed (status %d)\n", status);
    return 1;
  }
  std::printf("fork_in_region parent: checksum %llu\n",
              static_cast<unsigned long long>(before + after));
  return 0;
}

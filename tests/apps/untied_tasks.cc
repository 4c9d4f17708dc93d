// untied_tasks [depth] [work]: a binary tree of untied explicit tasks (default depth 14: 32,766
// tasks), created from a single thread, each leaf doing `work` rounds of hashing (default 400), a
// taskwait in every inner task. libomp starts an untied task with three schedule events (implicit
// -> task, task -> implicit, task -> task), so a tool that follows the prior task instead of the
// next one loses the tasks' time (0.3 us for the whole tree at one thread). Prints a checksum
// independent of the thread count.
#include <cstdint>
#include <cstdio>

#include "app_util.h"

namespace {

std::uint64_t tree(int depth, int max_depth, std::uint64_t work, std::uint64_t seed) {
  if (depth == max_depth) {
    std::uint64_t x = seed;
    for (std::uint64_t r = 0; r < work; ++r) x = apps::mix(x);
    return x;
  }
  std::uint64_t left = 0, right = 0;
#pragma omp task shared(left) untied
  left = tree(depth + 1, max_depth, work, seed * 2);
#pragma omp task shared(right) untied
  right = tree(depth + 1, max_depth, work, seed * 2 + 1);
#pragma omp taskwait
  return left ^ right;
}

}  // namespace

int main(int argc, char** argv) {
  const int depth = static_cast<int>(apps::arg_or(argc, argv, 1, 14));
  const std::uint64_t work = apps::arg_or(argc, argv, 2, 400);
  std::uint64_t sum = 0;
#pragma omp parallel
#pragma omp single
  sum = tree(0, depth, work, 1);
  std::printf("untied_tasks depth %d: checksum %llu, %llu tasks\n", depth,
              static_cast<unsigned long long>(sum),
              static_cast<unsigned long long>((2ULL << depth) - 2));
  return 0;
}

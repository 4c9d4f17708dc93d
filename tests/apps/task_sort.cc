// task_sort [n] [chunks]: sorts n pseudo-random keys (default 2M) with explicit tasks, as
// task-parallel sorts do. Phase 1: one thread (single) creates a task per chunk (default 64) and
// leaves; every thread, the producer included, executes them at the single's implicit barrier, so
// nearly all of the phase is task execution inside a barrier. Phase 2: the producer merges the
// sorted chunks in rounds, a merge task per pair and a taskwait after each round; the other
// threads wait for the round's tasks at the barrier. Prints a checksum of the sorted keys, which
// does not depend on the thread count.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "app_util.h"

namespace {

using Keys = std::vector<std::uint64_t>;

// Sorts every chunk: tasks created by one thread, executed at the barrier.
void sort_chunks(Keys& keys, std::uint64_t chunks) {
  const std::uint64_t n = keys.size();
#pragma omp single
  for (std::uint64_t c = 0; c < chunks; ++c) {
#pragma omp task firstprivate(c) shared(keys)
    std::sort(keys.begin() + static_cast<std::ptrdiff_t>(c * n / chunks),
              keys.begin() + static_cast<std::ptrdiff_t>((c + 1) * n / chunks));
  }
}

// Merges the sorted runs of `width` chunks pairwise until one is left, a taskwait per round.
void merge_rounds(Keys& keys, Keys& scratch, std::uint64_t chunks) {
  const std::uint64_t n = keys.size();
#pragma omp single
  for (std::uint64_t width = 1; width < chunks; width *= 2) {
    for (std::uint64_t c = 0; c < chunks; c += 2 * width) {
#pragma omp task firstprivate(c, width) shared(keys, scratch)
      {
        const auto at = [&](std::uint64_t chunk) {
          return static_cast<std::ptrdiff_t>(std::min(chunk, chunks) * n / chunks);
        };
        std::merge(keys.begin() + at(c), keys.begin() + at(c + width),
                   keys.begin() + at(c + width), keys.begin() + at(c + 2 * width),
                   scratch.begin() + at(c));
        std::copy(scratch.begin() + at(c), scratch.begin() + at(c + 2 * width),
                  keys.begin() + at(c));
      }
    }
#pragma omp taskwait
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::uint64_t n = apps::arg_or(argc, argv, 1, 2000000);
  const std::uint64_t chunks = apps::arg_or(argc, argv, 2, 64);
  Keys keys(n), scratch(n);
  for (std::uint64_t i = 0; i < n; ++i) keys[i] = apps::mix(i);
#pragma omp parallel
  {
    sort_chunks(keys, chunks);
    merge_rounds(keys, scratch, chunks);
  }
  std::uint64_t checksum = 0;
  bool sorted = true;
  for (std::uint64_t i = 0; i < n; ++i) {
    checksum = apps::mix(checksum ^ keys[i]);
    if (i > 0 && keys[i - 1] > keys[i]) sorted = false;
  }
  std::printf("task_sort %llu keys in %llu chunks: %s, checksum %016llx\n",
              static_cast<unsigned long long>(n), static_cast<unsigned long long>(chunks),
              sorted ? "sorted" : "NOT SORTED", static_cast<unsigned long long>(checksum));
  return sorted ? 0 : 1;
}

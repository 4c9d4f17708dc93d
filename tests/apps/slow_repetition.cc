// slow_repetition MARKER [ms]: one parallel region whose threads share `ms` milliseconds of busy
// work evenly (default 40), except in the first run with more than one thread: that run creates
// the file MARKER and gives thread 0 ten times the whole work more, so the others wait for it at
// the region's end barrier. Under `ompscan run --reps 3` this is one slow, imbalanced repetition
// among fast, balanced ones: the region's time (a median) comes from a fast repetition, and so
// must every other quantity. Prints a line that does not depend on the timing.
#include <fcntl.h>
#include <omp.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>

#include "app_util.h"

namespace {

// True for the one process that creates `path` (O_EXCL: exactly one, even when racing).
bool claim(const char* path) {
  const int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) return false;
  close(fd);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MARKER [ms]\n", argv[0]);
    return 2;
  }
  const std::uint64_t ms = apps::arg_or(argc, argv, 2, 40);
  const bool slow = omp_get_max_threads() > 1 && claim(argv[1]);
  const std::uint64_t work = apps::spin_trips_for_ns(ms * 1000000);
#pragma omp parallel
  {
    const auto threads = static_cast<std::uint64_t>(omp_get_num_threads());
    apps::spin(work / threads);
    if (slow && omp_get_thread_num() == 0) apps::spin(10 * work);
  }
  std::printf("slow_repetition done\n");
  return 0;
}

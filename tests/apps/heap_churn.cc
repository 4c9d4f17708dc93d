// heap_churn [steps] [kib]: like LULESH's time steps, every step allocates its temporary arrays
// (4 of `kib` KiB each, default 512: above glibc's initial mmap threshold, which then rises so
// later ones come from the heap), fills them in 16 short parallel regions and a reduction, and
// frees them. glibc gives the freed top of the heap back to the system, so every step faults its
// pages in again, unless something allocated above them stays: an OMPT tool's objects made
// during the run (its statistics, created when a full buffer is first aggregated, after the
// step's arrays) would change how often the application faults and how fast it runs. Prints a
// checksum on stdout and the process's minor page faults ("minor_faults=") on stderr.
#include <sys/resource.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "app_util.h"

int main(int argc, char** argv) {
  const std::uint64_t steps = apps::arg_or(argc, argv, 1, 100);
  const std::uint64_t kib = apps::arg_or(argc, argv, 2, 512);
  const auto n = static_cast<std::int64_t>(kib * 1024 / sizeof(double));
  double sum = 0;
  for (std::uint64_t step = 0; step < steps; ++step) {
    double* arrays[4];
    for (double*& a : arrays) a = static_cast<double*>(std::malloc(n * sizeof(double)));
    for (std::int64_t part = 0; part < 16; ++part) {
#pragma omp parallel for schedule(static)
      for (std::int64_t i = part * n / 16; i < (part + 1) * n / 16; ++i) {
        for (double* a : arrays) a[i] = static_cast<double>(i + step);
      }
    }
#pragma omp parallel for schedule(static) reduction(+ : sum)
    for (std::int64_t i = 0; i < n; ++i) sum += arrays[0][i] + arrays[3][i];
    for (double* a : arrays) std::free(a);
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::fprintf(stderr, "minor_faults=%ld\n", usage.ru_minflt);
  std::printf("heap_churn %llu steps: checksum %.0f\n", static_cast<unsigned long long>(steps), sum);
  return 0;
}

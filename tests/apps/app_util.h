// Helpers shared by the test applications (tests/apps/*.cc): command-line parsing, deterministic
// checksums and calibrated busy work.
//
// The applications print only results that do not depend on timing or thread count, so a test can
// compare a run under the OMPT tool with a run without it.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace apps {

// argv[index] as a positive integer, or `fallback` when absent. Malformed input exits with
// status 2 so a typo never silently runs the default size.
inline std::uint64_t arg_or(int argc, char** argv, int index, std::uint64_t fallback) {
  if (index >= argc) return fallback;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(argv[index], &end, 10);
  if (end == argv[index] || *end != '\0' || value == 0 || argv[index][0] == '-') {
    std::fprintf(stderr, "%s: argument %d must be a positive integer, got '%s'\n", argv[0], index,
                 argv[index]);
    std::exit(2);
  }
  return value;
}

// SplitMix64's finalizer: a cheap integer hash, so checksums catch lost or repeated work.
inline std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Busy work of `trips` loop trips. The empty asm keeps the compiler from removing or folding the
// loop; the result is deliberately nothing, as trip counts come from timing.
inline void spin(std::uint64_t trips) {
  for (std::uint64_t i = 0; i < trips; ++i) asm volatile("" ::: "memory");
}

// Trips of spin() per nanosecond, measured once per process (a few milliseconds): best of several
// runs, so a preemption during calibration does not inflate later work.
inline double spin_trips_per_ns() {
  constexpr std::uint64_t kTrips = 1 << 22;
  double best_ns = 0;
  for (int run = 0; run < 5; ++run) {
    const auto start = std::chrono::steady_clock::now();
    spin(kTrips);
    const double ns =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
    if (run == 0 || ns < best_ns) best_ns = ns;
  }
  return best_ns > 0 ? kTrips / best_ns : 1.0;
}

// Trip count of spin() lasting about `ns` nanoseconds on this machine.
inline std::uint64_t spin_trips_for_ns(std::uint64_t ns) {
  static const double trips_per_ns = spin_trips_per_ns();
  const double trips = trips_per_ns * static_cast<double>(ns);
  return trips < 1 ? 1 : static_cast<std::uint64_t>(trips);
}

}  // namespace apps

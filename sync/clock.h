#pragma once
// The one clock every ompscale measurement reads.
//
// Preferred source: the invariant TSC, read as `lfence; rdtsc; lfence` so the stamp cannot drift
// into the code it brackets; its frequency is calibrated against CLOCK_MONOTONIC_RAW. When the CPU
// does not advertise an invariant TSC (constant_tsc + nonstop_tsc in /proc/cpuinfo, or CPUID
// 0x80000007 EDX bit 8), or on other architectures, the clock is CLOCK_MONOTONIC_RAW in
// nanoseconds (one tick = 1 ns).
//
// init_clock() must run once before ticks() is used (it is cheap to call again; later calls return
// the first result). Tests and child processes may pass the frequency so every process of one
// sweep converts ticks with the same factor.

#include <cstdint>
#include <string>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif
#include <time.h>

namespace ompscale::sync {

enum class ClockSource { kTsc, kMonotonicRaw };

/// "tsc" or "monotonic_raw".
const char* to_string(ClockSource source);

struct ClockOptions {
  /// Use the TSC when it is invariant. false forces CLOCK_MONOTONIC_RAW (for tests, and for users
  /// who distrust the TSC on their machine).
  bool allow_tsc = true;
  /// TSC ticks per second when already known (e.g. measured by a parent process that found the
  /// TSC invariant on this machine, so the check is not repeated: on a virtual machine each CPUID
  /// exits to the hypervisor and /proc/cpuinfo is slow to read); 0 = check and calibrate.
  double known_ticks_per_second = 0;
  /// How long the frequency calibration observes both clocks. Longer is more precise; 20 ms gives
  /// about 1e-5 relative error on a quiet machine.
  double calibration_seconds = 0.02;
  /// Measure the clock's step and read cost (about 1 ms). A tool that only converts ticks skips
  /// it; ClockInfo then reports 0 for both.
  bool measure_resolution = true;
};

/// What the clock is, recorded in every sidecar.
struct ClockInfo {
  ClockSource source = ClockSource::kMonotonicRaw;
  bool tsc_invariant = false;     // what the CPU advertises (or a known frequency vouches for),
                                  // whether or not the TSC is used
  double ticks_per_second = 1e9;  // 1e9 for monotonic_raw
  double step_ns = 0;       // smallest non-zero difference of consecutive reads (0: not measured)
  double read_cost_ns = 0;  // median cost of one ticks() call (0: not measured)
};

/// Selects and calibrates a clock as `options` ask, without installing it: what init_clock() would
/// install on its first call. Takes about options.calibration_seconds when it calibrates the TSC.
/// Tests use it to check the CLOCK_MONOTONIC_RAW fallback whatever clock the process runs on.
ClockInfo calibrate_clock(const ClockOptions& options = {});

/// Selects and calibrates the clock (first call only; thread-safe: concurrent callers wait for the
/// first) and returns its description. Later calls ignore `options` and return the first result.
const ClockInfo& init_clock(const ClockOptions& options = {});

/// The description init_clock() produced. Before init_clock() it describes the default clock
/// ticks() reads until then: CLOCK_MONOTONIC_RAW in ns, with step and read cost unknown (0).
const ClockInfo& clock_info();

namespace detail {
// Set once by init_clock(), read-only afterwards. Before it: CLOCK_MONOTONIC_RAW, 1 ns per tick.
extern bool use_tsc;
extern double ns_per_tick;
}  // namespace detail

/// Current time in ticks of the selected clock. Serialising: no earlier instruction completes after
/// the read, no later one starts before it.
inline std::uint64_t ticks() {
#if defined(__x86_64__) || defined(__i386__)
  if (detail::use_tsc) {
    _mm_lfence();
    std::uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
  }
#endif
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

/// Current time in ticks, not ordered against the instructions around the read: the read may
/// land early or late by as much as the processor's out-of-order window (some hundreds of
/// cycles behind a cache miss). For stamps microseconds apart (the ompscan tool's region and loop
/// stamps, taken inside the application on every event) that is noise below what they measure,
/// and the fences of ticks() would drain the application's pipeline on each.
inline std::uint64_t ticks_unordered() {
#if defined(__x86_64__) || defined(__i386__)
  if (detail::use_tsc) return __rdtsc();
#endif
  return ticks();
}

/// Converts a tick difference (or a signed offset in ticks) to nanoseconds.
inline double ticks_to_ns(double ticks) {
  return ticks * detail::ns_per_tick;
}
inline double ns_to_ticks(double ns) {
  return ns / detail::ns_per_tick;
}

/// A thread's view of the clock: ticks() plus an artificial skew. The skew is 0 in production;
/// tests set it per thread to check that offset calibration recovers it. Every stamp a benchmark
/// takes goes through a LocalClock, so an injected skew travels through the whole pipeline.
struct LocalClock {
  std::int64_t skew_ticks = 0;
  std::uint64_t now() const { return ticks() + static_cast<std::uint64_t>(skew_ticks); }
};

}  // namespace ompscale::sync

#include "sync/clock.h"

#include <algorithm>
#include <array>
#include <fstream>
#include <limits>
#include <mutex>
#include <sstream>
#include <string>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace ompscale::sync {

namespace detail {
bool use_tsc = false;
double ns_per_tick = 1.0;
}  // namespace detail

const char* to_string(ClockSource source) {
  switch (source) {
    case ClockSource::kTsc:
      return "tsc";
    case ClockSource::kMonotonicRaw:
      return "monotonic_raw";
  }
  return "unknown";
}

namespace {

ClockInfo installed;  // written once, under init_clock's call_once; read-only afterwards

std::uint64_t monotonic_raw_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

#if defined(__x86_64__) || defined(__i386__)
std::uint64_t serialized_tsc() {
  _mm_lfence();
  const std::uint64_t t = __rdtsc();
  _mm_lfence();
  return t;
}

bool cpuid_invariant_tsc() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0x80000000u, &eax, &ebx, &ecx, &edx) == 0 || eax < 0x80000007u) return false;
  if (__get_cpuid(0x80000007u, &eax, &ebx, &ecx, &edx) == 0) return false;
  return (edx & (1u << 8)) != 0;
}
#endif

// Linux derives these flags from CPUID and from its own knowledge of CPU errata, so they are
// consulted too: a hypervisor may hide the CPUID bit while the kernel still trusts the TSC.
bool cpuinfo_invariant_tsc() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line);
    bool constant = false, nonstop = false;
    for (std::string word; words >> word;) {
      constant = constant || word == "constant_tsc";
      nonstop = nonstop || word == "nonstop_tsc";
    }
    return constant && nonstop;
  }
  return false;
}

bool tsc_invariant() {
#if defined(__x86_64__) || defined(__i386__)
  return cpuid_invariant_tsc() || cpuinfo_invariant_tsc();
#else
  return false;
#endif
}

#if defined(__x86_64__) || defined(__i386__)
// A (tsc, ns) pair read as close together as possible: the ns read bracketed by the two TSC reads
// with the smallest gap, so the pair's error is at most half that gap.
struct ClockPair {
  double tsc = 0;
  double ns = 0;
};

ClockPair tight_pair() {
  ClockPair best;
  std::uint64_t best_gap = std::numeric_limits<std::uint64_t>::max();
  for (int i = 0; i < 32; ++i) {
    const std::uint64_t before = serialized_tsc();
    const std::uint64_t ns = monotonic_raw_ns();
    const std::uint64_t after = serialized_tsc();
    if (after - before < best_gap) {
      best_gap = after - before;
      best.tsc = static_cast<double>(before) + static_cast<double>(after - before) / 2;
      best.ns = static_cast<double>(ns);
    }
  }
  return best;
}

double calibrate_tsc_ticks_per_second(double seconds) {
  const double observe_ns = std::max(seconds, 1e-3) * 1e9;
  const ClockPair first = tight_pair();
  // Sleep most of the interval (the TSC is invariant, so sleeping changes nothing), then spin to
  // its end so the second pair is read on a warm core.
  const auto sleep_ns = static_cast<long>(observe_ns * 0.9);
  timespec nap{sleep_ns / 1000000000L, sleep_ns % 1000000000L};
  nanosleep(&nap, nullptr);
  while (static_cast<double>(monotonic_raw_ns()) - first.ns < observe_ns) {
  }
  const ClockPair last = tight_pair();
  return (last.tsc - first.tsc) * 1e9 / (last.ns - first.ns);
}
#endif

// Smallest non-zero difference of consecutive reads, in ticks.
template <typename Read>
double step_ticks(Read read) {
  std::uint64_t smallest = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t previous = read();
  for (int i = 0; i < 20000; ++i) {
    const std::uint64_t now = read();
    if (now > previous) smallest = std::min(smallest, now - previous);
    previous = now;
  }
  return smallest == std::numeric_limits<std::uint64_t>::max() ? 0.0
                                                               : static_cast<double>(smallest);
}

// Median over trials of the average cost of one read in a loop of reads, in ticks.
template <typename Read>
double read_cost_ticks(Read read) {
  constexpr int kTrials = 101;
  constexpr int kReads = 64;
  std::array<double, kTrials> costs{};
  for (double& cost : costs) {
    const std::uint64_t start = read();
    for (int i = 0; i < kReads - 1; ++i) read();
    const std::uint64_t end = read();
    // kReads read-to-read intervals separate the first and the last stamp.
    cost = static_cast<double>(end - start) / kReads;
  }
  std::nth_element(costs.begin(), costs.begin() + kTrials / 2, costs.end());
  return costs[kTrials / 2];
}

}  // namespace

ClockInfo calibrate_clock(const ClockOptions& options) {
  ClockInfo info;
#if defined(__x86_64__) || defined(__i386__)
  info.tsc_invariant = options.known_ticks_per_second > 0 || tsc_invariant();
  if (options.allow_tsc && info.tsc_invariant) {
    info.source = ClockSource::kTsc;
    info.ticks_per_second = options.known_ticks_per_second > 0
                                ? options.known_ticks_per_second
                                : calibrate_tsc_ticks_per_second(options.calibration_seconds);
    if (options.measure_resolution) {
      const double ns_per_tick = 1e9 / info.ticks_per_second;
      info.step_ns = step_ticks(serialized_tsc) * ns_per_tick;
      info.read_cost_ns = read_cost_ticks(serialized_tsc) * ns_per_tick;
    }
    return info;
  }
#else
  info.tsc_invariant = tsc_invariant();  // false: no TSC to allow or calibrate
#endif
  info.source = ClockSource::kMonotonicRaw;
  info.ticks_per_second = 1e9;
  if (options.measure_resolution) {
    info.step_ns = step_ticks(monotonic_raw_ns);
    info.read_cost_ns = read_cost_ticks(monotonic_raw_ns);
  }
  return info;
}

const ClockInfo& init_clock(const ClockOptions& options) {
  static std::once_flag once;
  std::call_once(once, [&options] {
    installed = calibrate_clock(options);
    detail::ns_per_tick = 1e9 / installed.ticks_per_second;
    detail::use_tsc = installed.source == ClockSource::kTsc;
  });
  return installed;
}

const ClockInfo& clock_info() {
  return installed;
}

}  // namespace ompscale::sync

#include "microbench/constructs/epcc_calibration.h"

#include <algorithm>
#include <cmath>

namespace ompscale::microbench::epcc {

namespace {

// Stops the searches when the timed code takes no time (e.g. optimised away), where EPCC exits.
constexpr int kMaxDelayLength = 1 << 28;
constexpr long kMaxInnerReps = 1L << 32;
// Probes of a quarter of the target amortise per-call costs (the enclosing region's fork) well
// enough while `probes` of them cost about one test time.
constexpr double kProbeFraction = 0.25;

}  // namespace

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  const std::size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + middle, values.end());
  if (values.size() % 2 == 1) return values[middle];
  const double upper = values[middle];
  const double lower = *std::max_element(values.begin(), values.begin() + middle);
  return 0.5 * (lower + upper);
}

int calibrate_delay_length(const std::function<double(int length)>& seconds_per_delay,
                           double target_seconds, int timings) {
  if (target_seconds <= 0) return 0;
  const auto median_time = [&](int length) {
    std::vector<double> times;
    for (int k = 0; k < std::max(1, timings); ++k) times.push_back(seconds_per_delay(length));
    return median(std::move(times));
  };
  int length = 1;
  while (length < kMaxDelayLength / 2 && median_time(length) < target_seconds / 2) length *= 2;
  while (length < kMaxDelayLength && median_time(length) < target_seconds)
    length = static_cast<int>(length * 1.1) + 1;
  return length;
}

long calibrate_inner_reps(const std::function<double(long inner)>& run, double target_seconds,
                          int probes, long multiple) {
  multiple = std::max(1L, multiple);
  long probe_inner = multiple;
  while (probe_inner < kMaxInnerReps) {
    const double first = run(probe_inner);
    const double second = run(probe_inner);
    if (std::min(first, second) >= target_seconds * kProbeFraction) break;
    probe_inner *= 2;
  }
  std::vector<double> seconds_per_rep;
  for (int k = 0; k < std::max(1, probes); ++k)
    seconds_per_rep.push_back(run(probe_inner) / static_cast<double>(probe_inner));
  const double rate = median(std::move(seconds_per_rep));
  const double wanted = rate > 0 ? target_seconds / rate : static_cast<double>(kMaxInnerReps);
  const long multiples = std::llround(std::min(wanted, static_cast<double>(kMaxInnerReps)) /
                                      static_cast<double>(multiple));
  return std::max(1L, multiples) * multiple;
}

std::vector<bool> disturbed_reps(const std::vector<OuterRep>& reps) {
  std::vector<double> reference_seconds;
  std::vector<double> test_seconds;
  for (const OuterRep& rep : reps) {
    reference_seconds.push_back(rep.reference_seconds);
    test_seconds.push_back(rep.test_seconds);
  }
  const double reference_median = median(std::move(reference_seconds));
  const double test_median = median(std::move(test_seconds));
  std::vector<bool> disturbed;
  for (const OuterRep& rep : reps)
    disturbed.push_back(rep.cpu_wait_fraction > kMaxCpuWaitFraction ||
                        rep.test_to_target < kMinTestToTarget ||
                        rep.reference_seconds > kDisturbedFactor * reference_median ||
                        rep.test_seconds > kDisturbedFactor * test_median);
  return disturbed;
}

}  // namespace ompscale::microbench::epcc

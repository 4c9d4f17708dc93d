#include "dashboard/analysis/noise_floor.h"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "common/statistics.h"

namespace ompscale::dashboard {

double NoiseEstimate::sigma() const {
  return known() ? std::sqrt(variance) : std::nan("");
}

namespace {

// 5 robust standard deviations (1.4826 median |d|); infinite when that is 0.
double bound_of_median(double median) {
  const double robust = 1.4826 * median;
  return robust > 0 ? 5.0 * robust : std::numeric_limits<double>::infinity();
}

NoiseEstimate from_sums(double sum, double dof) {
  NoiseEstimate out;
  out.dof = dof;
  out.variance = dof > 0 ? sum / dof : 0.0;
  return out;
}

}  // namespace

double jump_bound(std::span<const double> absolute_differences) {
  if (absolute_differences.empty()) return std::numeric_limits<double>::infinity();
  return bound_of_median(stats::median(absolute_differences));
}

bool is_jump(double difference, std::span<const double> absolute_differences) {
  return std::fabs(difference) > jump_bound(absolute_differences);
}

NoiseEstimate estimate_from_differences(std::span<const double> absolute_differences,
                                        bool keep_jumps) {
  const double bound =
      keep_jumps ? std::numeric_limits<double>::infinity() : jump_bound(absolute_differences);
  double sum = 0.0, dof = 0.0;
  for (double d : absolute_differences) {
    if (std::fabs(d) > bound) continue;  // a change, not noise
    sum += d * d / 2.0;
    dof += 1.0;
  }
  return from_sums(sum, dof);
}

void PrefixNoise::add(double difference) {
  median_.add(difference);
  within_.add(difference, difference * difference / 2.0);
}

NoiseEstimate PrefixNoise::estimate() const {
  if (size() == 0) return {};
  const double bound = bound_of_median(median_.median());
  if (std::isinf(bound)) return estimate_keeping_jumps();
  return from_sums(within_.weight_at_most(bound),
                   static_cast<double>(within_.count_at_most(bound)));
}

NoiseEstimate PrefixNoise::estimate_keeping_jumps() const {
  return from_sums(within_.weight(), static_cast<double>(within_.count()));
}

NoiseEstimate moderated(const NoiseEstimate& own, const NoiseEstimate& group, double prior_dof) {
  if (!group.known()) return own;
  const double prior = std::min(group.dof, prior_dof);
  NoiseEstimate out;
  out.dof = own.dof + prior;
  out.variance = (own.dof * own.variance + prior * group.variance) / out.dof;
  return out;
}

double detectable_change(const NoiseEstimate& noise, std::size_t baseline_runs, std::size_t tests,
                         double significance) {
  if (!noise.known()) return std::nan("");
  const double per_test = significance / static_cast<double>(std::max<std::size_t>(1, tests));
  const boost::math::students_t student(noise.dof);
  const double t = boost::math::quantile(boost::math::complement(student, per_test / 2.0));
  const double b = static_cast<double>(std::max<std::size_t>(1, baseline_runs));
  return std::expm1(t * noise.sigma() * std::sqrt(1.0 + 1.0 / b));
}

double resolution(std::span<const double> values) {
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  if (sorted.size() < 2) return 0.0;
  const double rounding = 1e-9 * std::max(std::fabs(sorted.front()), std::fabs(sorted.back()));
  std::vector<double> gaps;
  for (std::size_t i = 1; i < sorted.size(); ++i) {
    const double gap = sorted[i] - sorted[i - 1];
    if (gap > rounding) gaps.push_back(gap);
  }
  // The typical gap between neighbouring distinct values: the step of stepped values, nearly
  // nothing for values that vary continuously (one odd value does not make them stepped).
  return gaps.empty() ? 0.0 : stats::median(gaps);
}

double resolution_floor(double resolution, double median) {
  return median > 0 ? 2.5 * resolution / median : 0.0;
}

}  // namespace ompscale::dashboard

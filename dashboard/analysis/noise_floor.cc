#include "dashboard/analysis/noise_floor.h"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <vector>

#include "common/statistics.h"

namespace ompscale::dashboard {

double NoiseEstimate::sigma() const {
  return known() ? std::sqrt(variance) : std::nan("");
}

bool is_jump(double difference, std::span<const double> absolute_differences) {
  if (absolute_differences.empty()) return false;
  const double robust = 1.4826 * stats::median(absolute_differences);
  return robust > 0 && std::fabs(difference) > 5.0 * robust;
}

NoiseEstimate estimate_from_differences(std::span<const double> absolute_differences,
                                        bool keep_jumps) {
  NoiseEstimate out;
  double sum = 0.0;
  for (double d : absolute_differences) {
    if (!keep_jumps && is_jump(d, absolute_differences)) continue;  // a change, not noise
    sum += d * d / 2.0;
    out.dof += 1.0;
  }
  out.variance = out.dof > 0 ? sum / out.dof : 0.0;
  return out;
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

#include "modeler/core/points.h"

#include <algorithm>
#include <cmath>
#include <span>

#include "common/statistics.h"

namespace ompscale::modeler {

namespace {

// Pseudo degrees of freedom with which each point's noise estimate is pulled towards the pooled
// one: 5 repetitions say little about their own spread, 100 say a lot.
constexpr double kNoisePriorDof = 30.0;

/// The share trimmed from each side: 25% (the paper's filter), but at least one value from 3
/// values on, so that three repetitions with one wild value still give a robust aggregate.
double trimmed_fraction(std::size_t n) {
  if (n < 3) return 0.0;
  return std::max(0.25, 1.0 / static_cast<double>(n));
}

double aggregate(std::span<const double> reps, Aggregation aggregation) {
  switch (aggregation) {
    case Aggregation::kMean:
      return stats::mean(reps);
    case Aggregation::kMedian:
      return stats::median(reps);
    case Aggregation::kMin:
      return stats::min(reps);
    case Aggregation::kMax:
      return stats::max(reps);
    case Aggregation::kTrimmedMean:
      return stats::trimmed_mean(reps, trimmed_fraction(reps.size()));
  }
  return stats::mean(reps);
}

/// Spread of one repetition such that spread / sqrt(n) is the standard error of the aggregate.
/// The robust aggregates get a robust spread (the winsorized standard deviation, as in the
/// Tukey-McLaughlin standard error of a trimmed mean): one wild repetition (a wrapped timer)
/// must not make its point look noisy, just as it does not move the aggregate.
double aggregate_spread(std::span<const double> reps, Aggregation aggregation) {
  if (aggregation != Aggregation::kTrimmedMean && aggregation != Aggregation::kMedian) {
    return stats::stddev(reps);
  }
  const auto n = reps.size();
  const double fraction = trimmed_fraction(n);
  std::vector<double> s = stats::sorted(reps);
  auto g = static_cast<std::size_t>(std::floor(fraction * static_cast<double>(n)));
  if (2 * g >= n) g = (n - 1) / 2;
  for (std::size_t i = 0; i < g; ++i) {
    s[i] = s[g];
    s[n - 1 - i] = s[n - 1 - g];
  }
  return stats::stddev(s) / (1.0 - 2.0 * static_cast<double>(g) / static_cast<double>(n));
}

}  // namespace

Points summarize(const Kernel& kernel, Aggregation aggregation) {
  Points p;
  double pooled = 0.0;
  std::vector<double> reps_count;
  std::vector<double> spreads;  // relative spread of one repetition, per point
  for (std::size_t i = 0; i < kernel.size(); ++i) {
    const auto reps = kernel.repetitions(i);
    PointSummary s;
    s.param = kernel.param(i);
    s.value = aggregate(reps, aggregation);
    s.min = stats::min(reps);
    s.max = stats::max(reps);
    s.cv = stats::coefficient_of_variation(reps);
    s.repetitions = reps.size();
    const double spread = reps.size() > 1 && s.value != 0.0
                              ? aggregate_spread(reps, aggregation) / std::fabs(s.value)
                              : 0.0;
    spreads.push_back(spread);
    p.summary.push_back(s);
    p.t.push_back(s.param);
    p.y.push_back(s.value);
    reps_count.push_back(static_cast<double>(reps.size()));
    if (reps.size() > 1) {
      pooled += static_cast<double>(reps.size() - 1) * spread * spread;
      p.noise_dof += static_cast<double>(reps.size() - 1);
    }
  }
  p.typical_reps = reps_count.empty() ? 1.0 : stats::median(reps_count);
  p.noise_from_repetitions = p.noise_dof > 0.0 && pooled > 0.0;
  double max_abs = 0.0;
  for (double v : p.y) max_abs = std::max(max_abs, std::fabs(v));
  const double floor = max_abs > 0.0 ? 1e-9 * max_abs : 1e-300;
  if (p.noise_from_repetitions) {
    p.noise_cv = std::sqrt(pooled / p.noise_dof);
    for (std::size_t i = 0; i < p.size(); ++i) {
      const double own_dof = static_cast<double>(p.summary[i].repetitions) - 1.0;
      const double cv2 =
          (own_dof * spreads[i] * spreads[i] + kNoisePriorDof * p.noise_cv * p.noise_cv) /
          (own_dof + kNoisePriorDof);
      const double sd = std::sqrt(cv2) * std::fabs(p.y[i]) / std::sqrt(reps_count[i]);
      p.sd.push_back(std::max(sd, floor));
    }
  } else {
    // No repetitions to learn the noise from: relative weights, scale estimated from residuals.
    for (double v : p.y) p.sd.push_back(std::max(std::fabs(v), floor));
  }
  return p;
}

Points with_weighting(const Points& p, Weighting weighting) {
  if (weighting == Weighting::kNoise) return p;
  Points q = p;
  q.uniform = true;
  q.noise_from_repetitions = false;
  q.systematic = 0.0;
  q.sd.assign(q.size(), 1.0);
  return q;
}

Points subset(const Points& all, const std::vector<std::size_t>& indices) {
  Points p = all;
  p.t.clear();
  p.y.clear();
  p.sd.clear();
  p.summary.clear();
  for (std::size_t i : indices) {
    p.t.push_back(all.t[i]);
    p.y.push_back(all.y[i]);
    p.sd.push_back(all.sd[i]);
    p.summary.push_back(all.summary[i]);
  }
  return p;
}

double smape_term(double actual, double predicted) {
  const double denominator = std::fabs(actual) + std::fabs(predicted);
  return denominator == 0.0 ? 0.0 : 200.0 * std::fabs(actual - predicted) / denominator;
}

double total_sum_of_squares(const std::vector<double>& y) {
  const double m = stats::mean(y);
  double tss = 0.0;
  for (double v : y) tss += (v - m) * (v - m);
  return tss;
}

}  // namespace ompscale::modeler

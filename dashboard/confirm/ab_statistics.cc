#include "dashboard/confirm/ab_statistics.h"

#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <vector>

namespace ompscale::dashboard {

bool usable_pair(const AbRound& r, double state_factor) {
  if (!(r.old_median > 0) || !(r.new_median > 0)) return false;
  if (!(r.old_canary_ns > 0) || !(r.new_canary_ns > 0)) return true;
  return r.old_canary_ns <= state_factor * r.new_canary_ns &&
         r.new_canary_ns <= state_factor * r.old_canary_ns;
}

double ab_detectable_change(double sd, std::size_t pairs, double significance, double power) {
  if (pairs < 2 || !(sd >= 0)) return std::nan("");
  const boost::math::students_t student(static_cast<double>(pairs - 1));
  const double t = boost::math::quantile(student, 1.0 - significance / 2) +
                   boost::math::quantile(student, power);
  return std::expm1(t * sd / std::sqrt(static_cast<double>(pairs)));
}

AbEstimate estimate_ab(std::span<const AbRound> rounds, const AbStatisticsOptions& options) {
  AbEstimate e;
  std::vector<double> ratios;
  for (const AbRound& r : rounds) {
    if (usable_pair(r, options.state_factor)) {
      ratios.push_back(std::log(r.new_median / r.old_median));
    } else {
      ++e.dropped;
    }
  }
  e.pairs = ratios.size();
  const double nan = std::nan("");
  e.change = e.low = e.high = e.detectable = nan;
  if (ratios.empty()) return e;
  double mean = 0.0;
  for (const double d : ratios) mean += d;
  mean /= static_cast<double>(ratios.size());
  e.change = std::expm1(mean);
  if (ratios.size() < 2) return e;
  double squares = 0.0;
  for (const double d : ratios) squares += (d - mean) * (d - mean);
  const double n = static_cast<double>(ratios.size());
  const double sd = std::sqrt(squares / (n - 1));
  const boost::math::students_t student(n - 1);
  const double half =
      boost::math::quantile(student, 1.0 - options.significance / 2) * sd / std::sqrt(n);
  e.low = std::expm1(mean - half);
  e.high = std::expm1(mean + half);
  e.detectable = ab_detectable_change(sd, ratios.size(), options.significance);
  if (ratios.size() < options.min_pairs) return e;
  const double threshold = std::log1p(options.threshold);
  if (mean - half > 0 && mean > threshold) {
    e.verdict = "slower";
  } else if (mean + half < 0 && mean < -threshold) {
    e.verdict = "faster";
  } else {
    e.verdict = "unchanged";
  }
  return e;
}

}  // namespace ompscale::dashboard

#include "dashboard/confirm/ab_statistics.h"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <vector>

#include "common/statistics.h"

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

namespace {

// P(T <= t) for t = 0 .. n(n+1)/2 of Wilcoxon's signed-rank statistic T of n pairs without ties
// under no change: every subset of the ranks 1..n as the positive ones, equally likely.
std::vector<double> signed_rank_cdf(std::size_t n) {
  const std::size_t top = n * (n + 1) / 2;
  std::vector<double> ways(top + 1, 0.0);
  ways[0] = 1.0;
  for (std::size_t rank = 1; rank <= n; ++rank) {
    for (std::size_t sum = top; sum >= rank; --sum) ways[sum] += ways[sum - rank];
  }
  const double total = std::ldexp(1.0, static_cast<int>(n));
  double running = 0.0;
  for (double& w : ways) w = (running += w) / total;
  return ways;
}

// The Walsh averages (d_i + d_j) / 2, i <= j, sorted: their median is the Hodges-Lehmann
// estimate, and order statistics of them bound its interval.
std::vector<double> walsh_averages(const std::vector<double>& d) {
  std::vector<double> out;
  out.reserve(d.size() * (d.size() + 1) / 2);
  for (std::size_t i = 0; i < d.size(); ++i) {
    for (std::size_t j = i; j < d.size(); ++j) out.push_back((d[i] + d[j]) / 2);
  }
  std::sort(out.begin(), out.end());
  return out;
}

double median_of_sorted(const std::vector<double>& v) {
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

std::size_t pairs_needed(double significance) {
  std::size_t n = 1;
  while (std::ldexp(1.0, -static_cast<int>(n)) > significance / 2 && n < 64) ++n;
  return n;
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
  const std::vector<double> walsh = walsh_averages(ratios);
  const double center = median_of_sorted(walsh);
  e.change = std::expm1(center);
  if (ratios.size() < 2) return e;
  e.detectable =
      ab_detectable_change(stats::robust_stddev(ratios), ratios.size(), options.significance);
  // The interval: the k-th smallest and largest Walsh averages, k - 1 the largest signed-rank
  // statistic no likelier than significance / 2 (none: too few pairs to exclude no change).
  const std::vector<double> cdf = signed_rank_cdf(ratios.size());
  std::size_t k = 0;
  while (k < cdf.size() && cdf[k] <= options.significance / 2) ++k;
  if (k == 0) return e;
  e.low = std::expm1(walsh[k - 1]);
  e.high = std::expm1(walsh[walsh.size() - k]);
  if (ratios.size() < std::max(options.min_pairs, pairs_needed(options.significance))) return e;
  // A change the interval shows to be real and does not show to be smaller than the threshold.
  const double threshold = std::log1p(options.threshold);
  const double low = walsh[k - 1], high = walsh[walsh.size() - k];
  if (low > 0 && high > threshold) {
    e.verdict = "slower";
  } else if (high < 0 && low < -threshold) {
    e.verdict = "faster";
  } else {
    e.verdict = "unchanged";
  }
  return e;
}

}  // namespace ompscale::dashboard

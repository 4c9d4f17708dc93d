#include "dashboard/analysis/rank_test.h"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <numeric>

namespace ompscale::dashboard {

namespace {

constexpr std::size_t kExactLimit = 20;

// Number of ways to reach each U with m items of x among m + n (U counts x-over-y pairs):
// the classic recurrence f(m, n, u) = f(m - 1, n, u - n) + f(m, n - 1, u).
double exact_two_sided(std::size_t m, std::size_t n, double u) {
  const std::size_t max_u = m * n;
  // counts[i][u] for the current n, built up over n.
  std::vector<std::vector<double>> prev(m + 1, std::vector<double>(max_u + 1, 0.0));
  for (std::size_t i = 0; i <= m; ++i) prev[i][0] = 1.0;  // n = 0: only U = 0
  for (std::size_t j = 1; j <= n; ++j) {
    std::vector<std::vector<double>> cur(m + 1, std::vector<double>(max_u + 1, 0.0));
    cur[0][0] = 1.0;
    for (std::size_t i = 1; i <= m; ++i) {
      for (std::size_t v = 0; v <= i * j; ++v) {
        cur[i][v] = prev[i][v] + (v >= j ? cur[i - 1][v - j] : 0.0);
      }
    }
    prev = std::move(cur);
  }
  const std::vector<double>& counts = prev[m];
  const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
  const double mean = static_cast<double>(max_u) / 2.0;
  const double distance = std::fabs(u - mean);
  double tail = 0.0;
  for (std::size_t v = 0; v <= max_u; ++v) {
    if (std::fabs(static_cast<double>(v) - mean) >= distance - 1e-9) tail += counts[v];
  }
  return std::min(1.0, tail / total);
}

}  // namespace

RankTest mann_whitney(std::span<const double> x, std::span<const double> y) {
  RankTest result;
  const std::size_t m = x.size(), n = y.size();
  if (m == 0 || n == 0) return result;
  // Ranks of the pooled sample, ties getting their average rank.
  std::vector<std::pair<double, bool>> pooled;  // value, from x
  pooled.reserve(m + n);
  for (double v : x) pooled.emplace_back(v, true);
  for (double v : y) pooled.emplace_back(v, false);
  std::sort(pooled.begin(), pooled.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  double rank_sum_x = 0.0, tie_term = 0.0;
  bool ties = false;
  for (std::size_t i = 0; i < pooled.size();) {
    std::size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    const double average_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
    const double t = static_cast<double>(j - i);
    if (t > 1) ties = true;
    tie_term += t * t * t - t;
    for (std::size_t k = i; k < j; ++k) {
      if (pooled[k].second) rank_sum_x += average_rank;
    }
    i = j;
  }
  const double dm = static_cast<double>(m), dn = static_cast<double>(n);
  result.u = rank_sum_x - dm * (dm + 1.0) / 2.0;
  const double mean = dm * dn / 2.0;
  const double total = dm + dn;
  const double variance = dm * dn / 12.0 * ((total + 1.0) - tie_term / (total * (total - 1.0)));
  const double distance = std::fabs(result.u - mean);
  result.z = variance > 0 ? (result.u - mean) / std::sqrt(variance) : 0.0;
  if (!ties && m <= kExactLimit && n <= kExactLimit) {
    result.exact = true;
    result.p_value = exact_two_sided(m, n, result.u);
    return result;
  }
  if (variance <= 0) {
    result.p_value = 1.0;  // every value tied: no evidence of a shift
    return result;
  }
  const double corrected = std::max(0.0, distance - 0.5) / std::sqrt(variance);
  const boost::math::normal normal;
  result.p_value =
      std::min(1.0, 2.0 * boost::math::cdf(boost::math::complement(normal, corrected)));
  return result;
}

std::vector<double> holm_adjust(std::span<const double> p) {
  const std::size_t m = p.size();
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] < p[b]; });
  std::vector<double> adjusted(m);
  double running = 0.0;
  for (std::size_t k = 0; k < m; ++k) {
    const double value = std::min(1.0, static_cast<double>(m - k) * p[order[k]]);
    running = std::max(running, value);
    adjusted[order[k]] = running;
  }
  return adjusted;
}

}  // namespace ompscale::dashboard

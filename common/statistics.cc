#include "common/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <unordered_map>

namespace ompscale::stats {

double mean(std::span<const double> x) {
  if (x.empty()) return std::nan("");
  return std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(x.size());
}

double min(std::span<const double> x) {
  if (x.empty()) return std::nan("");
  return *std::min_element(x.begin(), x.end());
}

double max(std::span<const double> x) {
  if (x.empty()) return std::nan("");
  return *std::max_element(x.begin(), x.end());
}

std::vector<double> sorted(std::span<const double> x) {
  std::vector<double> s(x.begin(), x.end());
  std::sort(s.begin(), s.end());
  return s;
}

double quantile(std::span<const double> x, double q) {
  if (x.empty()) return std::nan("");
  const std::vector<double> s = sorted(x);
  const double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(s.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, s.size() - 1);
  return s[lo] + (pos - static_cast<double>(lo)) * (s[hi] - s[lo]);
}

double median(std::span<const double> x) {
  return quantile(x, 0.5);
}

double stddev(std::span<const double> x) {
  if (x.size() < 2) return 0.0;
  const double m = mean(x);
  double ss = 0.0;
  for (double v : x) ss += (v - m) * (v - m);
  return std::sqrt(ss / static_cast<double>(x.size() - 1));
}

double robust_stddev(std::span<const double> x) {
  if (x.size() < 2) return 0.0;
  const double center = median(x);
  std::vector<double> deviations;
  deviations.reserve(x.size());
  for (double v : x) deviations.push_back(std::fabs(v - center));
  return 1.4826 * median(deviations);
}

double median_standard_error(double sigma, std::size_t n) {
  constexpr double kMedianEfficiency = 1.2533;  // sqrt(pi / 2)
  return n == 0 ? 0.0 : kMedianEfficiency * sigma / std::sqrt(static_cast<double>(n));
}

double trimmed_mean(std::span<const double> x, double fraction) {
  if (x.empty()) return std::nan("");
  const std::vector<double> s = sorted(x);
  auto drop = static_cast<std::size_t>(std::floor(fraction * static_cast<double>(s.size())));
  if (2 * drop >= s.size()) drop = (s.size() - 1) / 2;
  return mean(std::span<const double>(s).subspan(drop, s.size() - 2 * drop));
}

double coefficient_of_variation(std::span<const double> x) {
  const double m = mean(x);
  if (x.size() < 2 || m == 0.0) return 0.0;
  return stddev(x) / std::fabs(m);
}

namespace {

// The elements of each group, groups in order of first sight; each element its own group
// without `groups`.
std::vector<std::vector<std::size_t>> members_by_group(std::size_t size,
                                                       std::span<const std::size_t> groups) {
  std::vector<std::vector<std::size_t>> members;
  std::unordered_map<std::size_t, std::size_t> index;
  for (std::size_t i = 0; i < size; ++i) {
    const std::size_t id = groups.empty() ? i : groups[i];
    const auto [it, added] = index.try_emplace(id, members.size());
    if (added) members.emplace_back();
    members[it->second].push_back(i);
  }
  return members;
}

// The central `level` interval of `statistic` over `replicates` cluster-bootstrap resamples of
// the indices 0..size-1 (whole groups drawn); `statistic` gets each resample's indices.
template <typename Statistic>
Interval bootstrap_indices(std::size_t size, std::span<const std::size_t> groups, double level,
                           int replicates, unsigned seed, Statistic statistic) {
  const std::vector<std::vector<std::size_t>> members = members_by_group(size, groups);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> pick(0, members.size() - 1);
  std::vector<std::size_t> drawn;
  std::vector<double> values;
  values.reserve(static_cast<std::size_t>(replicates));
  for (int r = 0; r < replicates; ++r) {
    drawn.clear();
    for (std::size_t g = 0; g < members.size(); ++g) {
      const std::vector<std::size_t>& group = members[pick(rng)];
      drawn.insert(drawn.end(), group.begin(), group.end());
    }
    values.push_back(statistic(drawn));
  }
  const double tail = (1.0 - level) / 2.0;
  return {quantile(values, tail), quantile(values, 1.0 - tail)};
}

}  // namespace

Interval paired_bootstrap_difference(std::span<const double> a, std::span<const double> b, double q,
                                     std::span<const std::size_t> groups, double level,
                                     int replicates, unsigned seed) {
  const double nan = std::nan("");
  if (a.empty() || a.size() != b.size() || replicates < 1) return {nan, nan};
  if (!groups.empty() && groups.size() != a.size()) return {nan, nan};
  std::vector<double> ra, rb;
  return bootstrap_indices(a.size(), groups, level, replicates, seed,
                           [&](const std::vector<std::size_t>& drawn) {
                             ra.clear();
                             rb.clear();
                             for (std::size_t i : drawn) {
                               ra.push_back(a[i]);
                               rb.push_back(b[i]);
                             }
                             return quantile(ra, q) - quantile(rb, q);
                           });
}

Interval bootstrap_mean(std::span<const double> x, std::span<const std::size_t> groups,
                        double level, int replicates, unsigned seed) {
  const double nan = std::nan("");
  if (x.empty() || replicates < 1) return {nan, nan};
  if (!groups.empty() && groups.size() != x.size()) return {nan, nan};
  return bootstrap_indices(x.size(), groups, level, replicates, seed,
                           [&](const std::vector<std::size_t>& drawn) {
                             double sum = 0.0;
                             for (std::size_t i : drawn) sum += x[i];
                             return sum / static_cast<double>(drawn.size());
                           });
}

}  // namespace ompscale::stats

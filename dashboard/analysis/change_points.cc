#include "dashboard/analysis/change_points.h"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>
#include <numeric>

#include "dashboard/analysis/order_statistics.h"

namespace ompscale::dashboard {

namespace {

// E-divisive's statistic (energy distance of the two sides, scaled by m k / (m + k)) of splitting
// a segment into `m` and `k` values, from the sums of |x_p - x_q| over the pairs within each side
// and between them.
double statistic(double within_left, double within_right, double between, double m, double k) {
  const double energy = 2.0 * between / (m * k) - within_left / (m * (m - 1) / 2.0) -
                        within_right / (k * (k - 1) / 2.0);
  return m * k / (m + k) * energy;
}

// The statistic of every split of x[a, b) that leaves at least `min` values on each side (element
// i for the split before a + min + i), in O(n log n): each value's distances to the values before
// it and after it within the segment come from a Fenwick tree over their ranks, and the pair sums
// of both sides follow as the split moves right one value at a time.
std::vector<double> split_statistics(std::span<const double> x, std::size_t a, std::size_t b,
                                     std::size_t min) {
  const std::size_t n = b - a;
  // Centred, so that sums of distances taken as differences of sums of values lose nothing.
  const double centre = std::accumulate(x.begin() + a, x.begin() + b, 0.0) / static_cast<double>(n);
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = x[a + i] - centre;
  std::vector<double> to_earlier(n), to_later(n);
  RankedSums earlier(v), later(v);
  for (std::size_t i = 0; i < n; ++i) {
    to_earlier[i] = earlier.distance_sum(v[i]);
    earlier.add(v[i], v[i]);
  }
  for (std::size_t i = n; i-- > 0;) {
    to_later[i] = later.distance_sum(v[i]);
    later.add(v[i], v[i]);
  }
  const double total = std::accumulate(to_earlier.begin(), to_earlier.end(), 0.0);
  double within_left = std::accumulate(to_earlier.begin(), to_earlier.begin() + min, 0.0);
  double within_right = std::accumulate(to_later.begin() + min, to_later.end(), 0.0);
  std::vector<double> out;
  for (std::size_t left = min; left + min <= n; ++left) {
    if (left > min) {
      within_left += to_earlier[left - 1];
      within_right -= to_later[left - 1];
    }
    const double between = total - within_left - within_right;
    out.push_back(statistic(within_left, within_right, between, static_cast<double>(left),
                            static_cast<double>(n - left)));
  }
  return out;
}

struct Moments {
  double mean = 0.0, variance = 0.0, n = 0.0;
};

Moments moments(std::span<const double> x) {
  Moments m;
  m.n = static_cast<double>(x.size());
  m.mean = std::accumulate(x.begin(), x.end(), 0.0) / m.n;
  for (double v : x) m.variance += (v - m.mean) * (v - m.mean);
  m.variance = x.size() > 1 ? m.variance / (m.n - 1.0) : 0.0;
  return m;
}

// Two-sided Welch t-test of equal means.
double welch_p(const Moments& a, const Moments& b) {
  const double se2 = a.variance / a.n + b.variance / b.n;
  const double difference = std::fabs(a.mean - b.mean);
  if (se2 <= 0.0) return difference > 0.0 ? 0.0 : 1.0;  // noiseless sides
  const double t = difference / std::sqrt(se2);
  const double dof_denominator = (a.n > 1 ? std::pow(a.variance / a.n, 2) / (a.n - 1) : 0.0) +
                                 (b.n > 1 ? std::pow(b.variance / b.n, 2) / (b.n - 1) : 0.0);
  const double dof = dof_denominator > 0 ? se2 * se2 / dof_denominator : a.n + b.n - 2.0;
  const boost::math::students_t student(std::max(1.0, dof));
  return 2.0 * boost::math::cdf(boost::math::complement(student, t));
}

void split_segment(std::span<const double> x, std::size_t a, std::size_t b,
                   const ChangePointOptions& options, std::vector<ChangePoint>& out) {
  const std::size_t min = options.min_segment;
  if (b - a < 2 * min) return;
  const std::vector<double> q = split_statistics(x, a, b, min);
  std::size_t best = 0;
  double best_value = -1.0;
  for (std::size_t i = 0; i < q.size(); ++i) {
    if (q[i] > best_value) best_value = q[i], best = a + min + i;
  }
  const Moments left = moments(x.subspan(a, best - a));
  const Moments right = moments(x.subspan(best, b - best));
  const double p = welch_p(left, right);
  if (p >= options.significance || std::fabs(right.mean - left.mean) <= options.min_change) return;
  out.push_back({best, left.mean, right.mean, p});
  split_segment(x, a, best, options, out);
  split_segment(x, best, b, options, out);
}

// Spearman's rank correlation of x with its index.
double trend(std::span<const double> x) {
  const std::size_t n = x.size();
  if (n < 3) return 0.0;
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return x[a] < x[b]; });
  std::vector<double> rank(n);
  for (std::size_t r = 0; r < n; ++r) rank[order[r]] = static_cast<double>(r);
  double d2 = 0.0;
  for (std::size_t i = 0; i < n; ++i) d2 += std::pow(rank[i] - static_cast<double>(i), 2);
  const double dn = static_cast<double>(n);
  return 1.0 - 6.0 * d2 / (dn * (dn * dn - 1.0));
}

// The first index of a rise (or fall) in x[begin, end): the broken line, flat and then straight,
// that fits best (least squares) bends at the last flat index. Every bend is fitted in O(1) from
// suffix sums of the values and of index times value, so the search is linear in the extent.
std::size_t onset(std::span<const double> x, std::size_t begin, std::size_t end) {
  const std::size_t n = end - begin;
  if (n < 3) return begin + 1;
  const double mean = std::accumulate(x.begin() + begin, x.begin() + end, 0.0) / n;
  // y = a + b * r with r_i = max(0, i - h): sums over the points after the bend h.
  std::vector<double> suffix(n + 1, 0.0), suffix_indexed(n + 1, 0.0);
  double syy = 0;
  for (std::size_t j = n; j-- > 0;) {
    const double y = x[begin + j] - mean;
    suffix[j] = suffix[j + 1] + y;
    suffix_indexed[j] = suffix_indexed[j + 1] + static_cast<double>(j) * y;
    syy += y * y;
  }
  const double count = static_cast<double>(n), sy = suffix[0];
  std::size_t best = begin;
  double best_sse = std::numeric_limits<double>::infinity();
  for (std::size_t h = 0; h + 2 < n; ++h) {
    const double t = static_cast<double>(n - 1 - h);  // points after the bend: r = 1 .. t
    const double sr = t * (t + 1) / 2, srr = t * (t + 1) * (2 * t + 1) / 6;
    const double sry = suffix_indexed[h + 1] - static_cast<double>(h) * suffix[h + 1];
    const double denominator = count * srr - sr * sr;
    if (denominator <= 0) continue;
    const double b = (count * sry - sr * sy) / denominator;
    const double a = (sy - b * sr) / count;
    const double sse =
        syy - 2 * a * sy - 2 * b * sry + count * a * a + 2 * a * b * sr + b * b * srr;
    if (sse < best_sse) best_sse = sse, best = begin + h;
  }
  return best + 1;
}

}  // namespace

double energy_statistic(std::span<const double> values, std::size_t begin, std::size_t split_at,
                        std::size_t end) {
  // By the definition, pair by pair: the check of the one-pass scan.
  double within_left = 0, within_right = 0, between = 0;
  for (std::size_t p = begin; p < end; ++p) {
    for (std::size_t q = p + 1; q < end; ++q) {
      const double d = std::fabs(values[p] - values[q]);
      (q < split_at ? within_left : p >= split_at ? within_right : between) += d;
    }
  }
  return statistic(within_left, within_right, between, static_cast<double>(split_at - begin),
                   static_cast<double>(end - split_at));
}

std::vector<double> energy_statistics(std::span<const double> values, std::size_t begin,
                                      std::size_t end, std::size_t min_segment) {
  if (end - begin < 2 * min_segment) return {};
  return split_statistics(values, begin, end, min_segment);
}

std::vector<ChangePoint> e_divisive(std::span<const double> values,
                                    const ChangePointOptions& options) {
  std::vector<ChangePoint> out;
  ChangePointOptions o = options;
  o.min_segment = std::max<std::size_t>(2, o.min_segment);
  if (values.size() < 2 * o.min_segment) return out;
  split_segment(values, 0, values.size(), o, out);
  std::sort(out.begin(), out.end(),
            [](const ChangePoint& a, const ChangePoint& b) { return a.index < b.index; });
  // Levels between the final change points (the recursion saw wider segments).
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::size_t begin = i == 0 ? 0 : out[i - 1].index;
    const std::size_t end = i + 1 < out.size() ? out[i + 1].index : values.size();
    out[i].before = moments(values.subspan(begin, out[i].index - begin)).mean;
    out[i].after = moments(values.subspan(out[i].index, end - out[i].index)).mean;
  }
  return out;
}

std::vector<LevelShift> level_shifts(std::span<const double> values,
                                     const std::vector<ChangePoint>& points,
                                     std::size_t min_segment) {
  std::vector<LevelShift> shifts;
  std::vector<std::size_t> first_point;  // index into points of each shift's first change point
  for (std::size_t i = 0; i < points.size(); ++i) {
    const ChangePoint& p = points[i];
    const bool up = p.after > p.before;
    if (!shifts.empty() && i > 0) {
      LevelShift& last = shifts.back();
      const bool same_direction = (last.after > last.before) == up;
      // The runs between the two points must themselves move the same way (a ramp, not a
      // stair), or be too few to tell a level of their own from a noisy stretch of a ramp.
      const auto between = values.subspan(points[i - 1].index, p.index - points[i - 1].index);
      const double rho = trend(between);
      const bool short_tread = between.size() < 3 * min_segment;
      if (same_direction && (short_tread || (up ? rho >= 0.5 : rho <= -0.5))) {
        last.last = p.index;
        last.after = p.after;
        last.p_value = std::min(last.p_value, p.p_value);
        continue;
      }
    }
    shifts.push_back({p.index, p.index, p.before, p.after, p.p_value});
    first_point.push_back(i);
  }
  // A drift's first change point lies where its rise first exceeded the practical threshold, some
  // runs after the rise began: date it by the bend of a broken line over its whole extent.
  for (std::size_t s = 0; s < shifts.size(); ++s) {
    if (!shifts[s].drift()) continue;
    const std::size_t i = first_point[s];
    const std::size_t begin = i == 0 ? 0 : points[i - 1].index;
    std::size_t end = values.size();
    for (const ChangePoint& p : points) {
      if (p.index > shifts[s].last) end = std::min(end, p.index);
    }
    shifts[s].first = std::min(shifts[s].first, std::max(begin + 1, onset(values, begin, end)));
  }
  return shifts;
}

}  // namespace ompscale::dashboard

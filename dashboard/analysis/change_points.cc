#include "dashboard/analysis/change_points.h"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>
#include <numeric>

namespace ompscale::dashboard {

namespace {

// Sums of |x_p - x_q| over rectangles of index pairs in O(1), after O(n^2) preparation.
class DistanceSums {
 public:
  explicit DistanceSums(std::span<const double> x) : n_(x.size()), sums_((n_ + 1) * (n_ + 1), 0.0) {
    for (std::size_t i = 0; i < n_; ++i) {
      for (std::size_t j = 0; j < n_; ++j) {
        at(i + 1, j + 1) = std::fabs(x[i] - x[j]) + at(i, j + 1) + at(i + 1, j) - at(i, j);
      }
    }
  }
  // Sum over p in [r0, r1), q in [c0, c1).
  double block(std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1) const {
    return get(r1, c1) - get(r0, c1) - get(r1, c0) + get(r0, c0);
  }

 private:
  double& at(std::size_t i, std::size_t j) { return sums_[i * (n_ + 1) + j]; }
  double get(std::size_t i, std::size_t j) const { return sums_[i * (n_ + 1) + j]; }
  std::size_t n_;
  std::vector<double> sums_;
};

double statistic(const DistanceSums& d, std::size_t a, std::size_t tau, std::size_t b) {
  const double m = static_cast<double>(tau - a), k = static_cast<double>(b - tau);
  const double between = d.block(a, tau, tau, b);
  const double within_left = d.block(a, tau, a, tau) / 2.0;
  const double within_right = d.block(tau, b, tau, b) / 2.0;
  const double energy = 2.0 * between / (m * k) - within_left / (m * (m - 1) / 2.0) -
                        within_right / (k * (k - 1) / 2.0);
  return m * k / (m + k) * energy;
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

void split(std::span<const double> x, const DistanceSums& d, std::size_t a, std::size_t b,
           const ChangePointOptions& options, std::vector<ChangePoint>& out) {
  const std::size_t min = options.min_segment;
  if (b - a < 2 * min) return;
  std::size_t best = 0;
  double best_value = -1.0;
  for (std::size_t tau = a + min; tau + min <= b; ++tau) {
    const double q = statistic(d, a, tau, b);
    if (q > best_value) best_value = q, best = tau;
  }
  const Moments left = moments(x.subspan(a, best - a));
  const Moments right = moments(x.subspan(best, b - best));
  const double p = welch_p(left, right);
  if (p >= options.significance || std::fabs(right.mean - left.mean) <= options.min_change) return;
  out.push_back({best, left.mean, right.mean, p});
  split(x, d, a, best, options, out);
  split(x, d, best, b, options, out);
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
// that fits best (least squares) bends at the last flat index.
std::size_t onset(std::span<const double> x, std::size_t begin, std::size_t end) {
  std::size_t best = begin;
  double best_sse = std::numeric_limits<double>::infinity();
  for (std::size_t h = begin; h + 2 < end; ++h) {
    // y = a + b * max(0, i - h): ordinary least squares with regressor r_i = max(0, i - h).
    double n = 0, sr = 0, sy = 0, srr = 0, sry = 0;
    for (std::size_t i = begin; i < end; ++i) {
      const double r = i > h ? static_cast<double>(i - h) : 0.0;
      n += 1, sr += r, sy += x[i], srr += r * r, sry += r * x[i];
    }
    const double denominator = n * srr - sr * sr;
    if (denominator <= 0) continue;
    const double b = (n * sry - sr * sy) / denominator;
    const double a = (sy - b * sr) / n;
    double sse = 0;
    for (std::size_t i = begin; i < end; ++i) {
      const double r = i > h ? static_cast<double>(i - h) : 0.0;
      sse += std::pow(x[i] - a - b * r, 2);
    }
    if (sse < best_sse) best_sse = sse, best = h;
  }
  return best + 1;
}

}  // namespace

double energy_statistic(std::span<const double> values, std::size_t begin, std::size_t split_at,
                        std::size_t end) {
  return statistic(DistanceSums(values), begin, split_at, end);
}

std::vector<ChangePoint> e_divisive(std::span<const double> values,
                                    const ChangePointOptions& options) {
  std::vector<ChangePoint> out;
  ChangePointOptions o = options;
  o.min_segment = std::max<std::size_t>(2, o.min_segment);
  if (values.size() < 2 * o.min_segment) return out;
  const DistanceSums sums(values);
  split(values, sums, 0, values.size(), o, out);
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

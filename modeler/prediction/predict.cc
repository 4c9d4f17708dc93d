#include "modeler/prediction/predict.h"

#include <algorithm>
#include <boost/math/tools/roots.hpp>
#include <cmath>
#include <functional>
#include <limits>

#include "modeler/numerics/student_t.h"

namespace ompscale::modeler {

namespace {

struct ComponentAt {
  double weight;
  double location;
  double scale;  ///< 0 when the component carries no uncertainty
  double dof;
  bool log_scale;  ///< Student t of log(x) around log(location), relative scale

  double cdf(double x) const {
    if (scale == 0.0) return x >= location ? 1.0 : 0.0;
    if (log_scale && !(x > 0.0)) return 0.0;
    const double z =
        log_scale ? std::log(x / location) / (scale / location) : (x - location) / scale;
    // inf / inf at extreme scales (a fuzzer's kernels): a step, not an exception from Boost.
    if (std::isnan(z)) return x >= location ? 1.0 : 0.0;
    return student_t_cdf(z, dof);
  }
};

/// Each component at t, with the uncertainty of extrapolating (model-form drift and change of
/// law) beyond the measured range.
std::vector<ComponentAt> evaluate_components(const PredictiveDistribution& distribution, double t) {
  std::vector<ComponentAt> out;
  for (const PredictiveComponent& c : distribution.components) {
    const double location = c.model.evaluate(t);
    std::vector<double> x{1.0};
    for (const Term& term : c.model.terms) x.push_back(term.shape.evaluate(t));
    double variance = 0.0;
    const std::size_t p = x.size();
    if (c.covariance.size() == p * p) {
      for (std::size_t i = 0; i < p; ++i) {
        for (std::size_t j = 0; j < p; ++j) variance += x[i] * c.covariance[i * p + j] * x[j];
      }
    }
    const double relative = c.noise_sd_relative * location;
    double doublings = 0.0;
    if (c.range_high > 0.0 && t > c.range_high) doublings = std::log2(t / c.range_high);
    if (c.range_low > 0.0 && t < c.range_low) doublings = std::log2(c.range_low / t);
    const double per_doubling = std::hypot(c.drift_sd_relative, c.law_change_sd_relative);
    const double drift = per_doubling * doublings * location;
    variance = std::max(0.0, variance) + c.noise_sd_absolute * c.noise_sd_absolute +
               relative * relative + drift * drift;
    out.push_back({c.weight, location, std::sqrt(variance), std::max(1.0, c.dof),
                   c.positive && location > 0.0});
  }
  return out;
}

double mixture_cdf(const std::vector<ComponentAt>& components, double x) {
  double cdf = 0.0;
  double total = 0.0;
  for (const ComponentAt& c : components) total += c.weight;
  for (const ComponentAt& c : components) cdf += c.weight * c.cdf(x);
  return total > 0.0 ? cdf / total : cdf;
}

// Bits of precision of the quantile searches for the intervals' ends.
constexpr int kIntervalBits = 40;

double solve_for_probability(const std::vector<ComponentAt>& components, double probability,
                             double low, double high, int bits);

double mixture_quantile(const std::vector<ComponentAt>& components, double probability) {
  double low = std::numeric_limits<double>::infinity();
  double high = -low;
  double widest = 0.0;
  for (const ComponentAt& c : components) {
    low = std::min(low, c.location);
    high = std::max(high, c.location);
    widest = std::max(widest, c.scale);
  }
  if (widest == 0.0) {
    // Point masses only: the weighted quantile of the locations.
    std::vector<ComponentAt> sorted = components;
    std::sort(sorted.begin(), sorted.end(),
              [](const ComponentAt& a, const ComponentAt& b) { return a.location < b.location; });
    double total = 0.0;
    for (const ComponentAt& c : sorted) total += c.weight;
    double cumulative = 0.0;
    for (const ComponentAt& c : sorted) {
      cumulative += c.weight;
      if (cumulative >= probability * total) return c.location;
    }
    return sorted.back().location;
  }
  if (probability == 0.5 && low < high) {
    // Every component is symmetric about its location (in log space when multiplicative), so
    // the median lies between the smallest and the largest location: a bracket without search.
    return solve_for_probability(components, probability, low, high, kIntervalBits);
  }
  // Student t with few degrees of freedom has heavy tails: widen the bracket until it holds.
  double span = 10.0 * widest;
  while (std::isfinite(span) && mixture_cdf(components, low - span) > probability) span *= 4.0;
  low -= span;
  span = 10.0 * widest;
  while (std::isfinite(span) && mixture_cdf(components, high + span) < probability) span *= 4.0;
  high += span;
  if (!std::isfinite(low)) low = -std::numeric_limits<double>::max();
  if (!std::isfinite(high)) high = std::numeric_limits<double>::max();
  return solve_for_probability(components, probability, low, high, kIntervalBits);
}

/// The x in [low, high] at which the mixture's cdf reaches `probability`, to `bits` bits.
double solve_for_probability(const std::vector<ComponentAt>& components, double probability,
                             double low, double high, int bits) {
  constexpr std::uintmax_t kMaxIterations = 100;
  const auto f = [&](double x) { return mixture_cdf(components, x) - probability; };
  // TOMS 748 needs a sign change (it throws otherwise), which extreme scales can prevent.
  if (f(low) < 0.0 && f(high) > 0.0) {
    std::uintmax_t iterations = kMaxIterations;
    const auto [a, b] = boost::math::tools::toms748_solve(
        f, low, high, boost::math::tools::eps_tolerance<double>(bits), iterations);
    if (iterations < kMaxIterations) return (a + b) / 2.0;
  }
  // Not bracketed or not converged (steps of point masses among wide components): bisection of
  // the monotone cdf always ends, at the smallest x whose cdf reaches the probability.
  for (int i = 0; i < 200 && low < high; ++i) {
    const double mid = low + (high - low) / 2.0;
    if (mid <= low || mid >= high) break;
    (mixture_cdf(components, mid) < probability ? low : high) = mid;
  }
  return high;
}

/// The point prediction at t: the weighted median of the hypotheses' values at t, each at its
/// posterior weight. A hypothesis holding more than half of the posterior gives its own value;
/// without one, the law in the middle of the posterior does (docs/methods.md, "Predictions").
/// Each hypothesis counts by its weight alone: taken with its own spread, a poorly determined
/// hypothesis, wide far beyond the range, would move the point by its width. Only at an exact
/// tie (half the weight on each side) is the point a blend: the midpoint of the two laws around
/// it, which keeps it continuous in t. Laws without weight do not count; a law whose value is
/// not a number counts as the highest. 0 without components, like every field of a Prediction
/// then.
double point_at(const PredictiveDistribution& distribution, double t) {
  struct Law {
    double value, weight;
  };
  std::vector<Law> laws;  // only the values and weights: no spread enters the point
  for (const PredictiveComponent& c : distribution.components) {
    if (c.weight > 0.0) laws.push_back({c.model.evaluate(t), c.weight});
  }
  if (laws.empty()) return 0.0;
  std::sort(laws.begin(), laws.end(), [](const Law& a, const Law& b) {
    return std::isnan(b.value) ? !std::isnan(a.value) : a.value < b.value;
  });
  double total = 0.0;
  for (const Law& law : laws) total += law.weight;
  double below = 0.0;
  for (std::size_t i = 0; i + 1 < laws.size(); ++i) {
    below += laws[i].weight;
    if (below < 0.5 * total * (1.0 - 1e-12)) continue;
    if (below > 0.5 * total * (1.0 + 1e-12)) return laws[i].value;
    return laws[i].value + 0.5 * (laws[i + 1].value - laws[i].value);
  }
  return laws.back().value;
}

/// The predictive mixture's quantile at t, the uncertainty of extrapolating included.
double quantile_at(const PredictiveDistribution& distribution, double t, double probability) {
  if (distribution.components.empty()) return 0.0;
  return mixture_quantile(evaluate_components(distribution, t), probability);
}

}  // namespace

Prediction predict(const PredictiveDistribution& distribution, double t, double level) {
  Prediction prediction;
  prediction.param = t;
  prediction.level = level;
  if (distribution.components.empty()) return prediction;
  const double tail = (1.0 - level) / 2.0;
  const auto components = evaluate_components(distribution, t);
  prediction.interval.low = mixture_quantile(components, tail);
  prediction.interval.high = mixture_quantile(components, 1.0 - tail);
  prediction.value = point_at(distribution, t);
  return prediction;
}

double predicted_value(const PredictiveDistribution& distribution, double t) {
  return point_at(distribution, t);
}

double predictive_cdf(const PredictiveDistribution& distribution, double t, double x) {
  if (distribution.components.empty()) return 0.5;
  return mixture_cdf(evaluate_components(distribution, t), x);
}

BudgetCrossing find_budget_crossing(const PredictiveDistribution& distribution, double budget,
                                    double level, double from, double limit) {
  BudgetCrossing crossing;
  crossing.budget = budget;
  crossing.search_limit = limit;
  from = std::max(1.0, std::ceil(from));
  if (limit < from) return crossing;

  // Smallest whole t in [from, limit] with value(t) > budget: scan geometrically (models need
  // not be monotone), then solve for the root in the bracket with TOMS 748 and round up.
  auto first_exceeding = [&](const std::function<double(double)>& value) -> std::optional<double> {
    if (value(from) > budget) return from;
    double previous = from;
    for (double t = from * 1.0905;; t *= 1.0905) {  // 2^(1/8): eight steps per doubling
      const double clamped = std::min(t, limit);
      if (value(clamped) > budget) {
        std::uintmax_t iterations = 60;
        const auto bracket = boost::math::tools::toms748_solve(
            [&](double x) { return value(x) - budget; }, previous, clamped,
            boost::math::tools::eps_tolerance<double>(30), iterations);
        double whole = std::ceil(bracket.second);
        // The bracket's end is within rounding of the root: step to the first whole t that is over.
        while (whole > from && value(whole - 1.0) > budget) whole -= 1.0;
        while (whole < clamped && !(value(whole) > budget)) whole += 1.0;
        return whole;
      }
      if (clamped >= limit) return std::nullopt;
      previous = clamped;
    }
  };
  // Each search evaluates only what it crosses with: the point, or one end of the interval.
  const double tail = (1.0 - level) / 2.0;
  crossing.threads = first_exceeding([&](double t) { return point_at(distribution, t); });
  crossing.threads_early =
      first_exceeding([&](double t) { return quantile_at(distribution, t, 1.0 - tail); });
  crossing.threads_late =
      first_exceeding([&](double t) { return quantile_at(distribution, t, tail); });
  return crossing;
}

}  // namespace ompscale::modeler

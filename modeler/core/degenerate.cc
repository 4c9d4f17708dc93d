#include "modeler/core/degenerate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace ompscale::modeler {

namespace {

// Weights are 1 / sd^2 and sd can be 1e-9 of the largest value: magnitudes inside this range keep
// every weight, residual and covariance far from overflow and underflow.
constexpr double kSmallestMagnitude = 1e-100;
constexpr double kLargestMagnitude = 1e100;

std::string describe_points(const Points& p) {
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < p.size(); ++i) parts.push_back(fmt::format("{:g}", p.t[i]));
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

Kernel finite_part(const Kernel& kernel, std::size_t& dropped) {
  dropped = 0;
  std::vector<Sample> samples;
  samples.reserve(kernel.sample_count());
  for (std::size_t i = 0; i < kernel.size(); ++i) {
    for (double v : kernel.repetitions(i)) {
      if (std::isfinite(v)) {
        samples.push_back({kernel.param(i), v});
      } else {
        ++dropped;
      }
    }
  }
  if (dropped == 0) return kernel;
  std::vector<std::string> key;
  for (std::string_view v : kernel.key_values()) key.emplace_back(v);
  return Kernel::from_samples(key, std::move(samples));
}

std::optional<std::string> why_no_model(const Points& p) {
  if (p.size() < kMinModelPoints) {
    return fmt::format("{} thread count{} ({}): a model needs {} or more", p.size(),
                       p.size() == 1 ? "" : "s", describe_points(p), kMinModelPoints);
  }
  for (double t : p.t) {
    if (!(t >= kSmallestMagnitude && t <= kLargestMagnitude)) {
      return fmt::format(
          "a parameter value of {:.3g} is outside what the fit handles ({:g} to {:g})", t,
          kSmallestMagnitude, kLargestMagnitude);
    }
  }
  double largest = 0.0;
  for (double v : p.y) {
    if (!std::isfinite(v)) return std::string("an aggregated value is not finite");
    largest = std::max(largest, std::fabs(v));
  }
  if (largest > 0.0 && (largest < kSmallestMagnitude || largest > kLargestMagnitude)) {
    return fmt::format(
        "values of magnitude {:.3g} are outside what the fit handles ({:g} to {:g}): express "
        "them in another unit",
        largest, kSmallestMagnitude, kLargestMagnitude);
  }
  for (double sd : p.sd) {
    if (!(std::isfinite(sd) && sd > 0.0)) {
      return std::string("the noise of the values cannot be estimated (a spread is not finite)");
    }
  }
  return std::nullopt;
}

bool keep_finite_components(PredictiveDistribution& predictive) {
  auto finite = [](const PredictiveComponent& c) {
    const auto ok = [](double v) { return std::isfinite(v); };
    return ok(c.weight) && c.weight >= 0.0 && ok(c.model.constant) && ok(c.dof) &&
           ok(c.noise_sd_absolute) && ok(c.noise_sd_relative) &&
           std::all_of(c.covariance.begin(), c.covariance.end(), ok) &&
           std::all_of(c.model.terms.begin(), c.model.terms.end(),
                       [&](const Term& t) { return ok(t.coefficient); });
  };
  auto& components = predictive.components;
  std::erase_if(components, [&](const PredictiveComponent& c) { return !finite(c); });
  double total = 0.0;
  for (const PredictiveComponent& c : components) total += c.weight;
  if (!(total > 0.0)) return false;
  for (PredictiveComponent& c : components) c.weight /= total;
  return true;
}

ClassModel no_model(const Points& p, std::string reason) {
  ClassModel m;
  m.points = p.summary;
  m.no_model = std::move(reason);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  m.model.constant = nan;
  m.stats.points = p.size();
  m.stats.rss = m.stats.tss = m.stats.adjusted_r2 = nan;
  m.stats.smape = m.stats.cv_error = nan;
  return m;
}

bool all_zero(const Points& p) {
  return p.size() > 0 && std::all_of(p.y.begin(), p.y.end(), [](double v) { return v == 0.0; });
}

ClassModel zero_model(const Points& p) {
  ClassModel m;
  m.points = p.summary;
  m.stats.points = p.size();
  m.stats.adjusted_r2 = 1.0;  // as for any constant: nothing is left to explain
  m.coefficient_intervals.push_back({0.0, 0.0});
  PredictiveComponent only;
  only.covariance = {0.0};
  only.dof = std::max(1.0, static_cast<double>(p.size()) - 1.0);
  m.predictive.components.push_back(std::move(only));
  m.warnings.push_back("every aggregated value is 0: the model is the constant 0");
  return m;
}

}  // namespace ompscale::modeler

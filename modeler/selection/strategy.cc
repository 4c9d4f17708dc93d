#include "modeler/selection/strategy.h"

#include "modeler/selection/cross_validated.h"
#include "modeler/selection/extrap_preset.h"
#include "modeler/selection/noise_aware.h"

namespace ompscale::modeler {

namespace {

ClassModel fit_extrap_with_point_distribution(const Points& p, const ModelerOptions& options) {
  ClassModel result = fit_extrap(p, options);
  // Extra-P gives no intervals; a single component without uncertainty still serves predictions.
  PredictiveComponent only;
  only.model = result.model;
  only.covariance.assign((result.model.terms.size() + 1) * (result.model.terms.size() + 1), 0.0);
  result.predictive.components.push_back(std::move(only));
  return result;
}

}  // namespace

ClassModel fit_with_strategy(const Points& p, const ModelerOptions& options) {
  switch (options.strategy) {
    case Strategy::kNoiseAware:
      return fit_noise_aware(p, options);
    case Strategy::kCrossValidated:
      return fit_cross_validated(p, options);
    case Strategy::kExtrap:
      return fit_extrap_with_point_distribution(p, options);
  }
  return fit_noise_aware(p, options);
}

}  // namespace ompscale::modeler

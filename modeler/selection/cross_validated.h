#pragma once
// Internal to the modeler: the cross-validated strategy (Strategy::kCrossValidated). Extra-P's
// criterion, the lowest held-out error, with what the default preset adds around it: the
// hypothesis space grows falling shapes for falling values, a positive cost gets no hypothesis
// that turns negative, and the model comes with intervals (docs/methods.md, "Strategies").

#include "modeler/core/points.h"
#include "modeler/core/result.h"
#include "modeler/presets/options.h"

namespace ompscale::modeler {

/// Every hypothesis fitted with `options.weighting`; the one with the lowest held-out error
/// (`options.held_out_error`, leave-one-out or `options.folds`) is the model and the prediction.
/// Its interval: the coefficients' covariance and the noise around the law, both scaled by the
/// residuals, and the uncertainty of extrapolating.
ClassModel fit_cross_validated(const Points& p, const ModelerOptions& options);

}  // namespace ompscale::modeler

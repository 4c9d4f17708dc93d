#pragma once
// Internal to the modeler: what every scoring strategy (noise-aware, cross-validated) derives
// from the hypothesis it chose: the model with its statistics and coefficient intervals, its
// predictive component, refined exponents on request, and the uncertainty of extrapolating.

#include "modeler/core/points.h"
#include "modeler/core/result.h"
#include "modeler/presets/options.h"
#include "modeler/selection/selection.h"

namespace ompscale::modeler {

/// Candidate `c` as one component of a predictive distribution with weight `weight`: its model,
/// coefficient covariance, the noise of a new measurement (relative, or absolute for uniformly
/// weighted points) and the measured range. No uncertainty of extrapolating yet.
PredictiveComponent make_component(const Points& p, const Candidate& c, double weight,
                                   double noise_scale);

/// The chosen candidate as a model: the model, its fit statistics and the confidence intervals
/// of its coefficients at `options.confidence`. No predictive distribution yet.
ClassModel describe_chosen(const SelectionOutcome& sel, const ModelerOptions& options);

/// Frees the chosen model's exponents (Ceres). The refined model replaces the chosen one, and
/// the predictive distribution becomes its single component, only when its leave-one-out
/// weighted error, refitted per fold, is lower; a warning says which happened.
void refine_chosen(const SelectionOutcome& sel, ClassModel& result);

/// Every component gets the uncertainty of extrapolating: the chosen hypothesis's model-form
/// drift and the change-of-law allowance per doubling beyond the range; components of positive
/// costs become multiplicative. Weights are normalised.
void add_extrapolation_uncertainty(const SelectionOutcome& sel, const ModelerOptions& options,
                                   PredictiveDistribution& distribution);

}  // namespace ompscale::modeler

#pragma once
// Internal to the modeler: the default preset's noise-aware selection and model averaging
// (docs/methods.md, "Selection" and "Predictions").

#include "modeler/options.h"
#include "modeler/points.h"
#include "modeler/result.h"

namespace ompscale::modeler {

/// The chosen model with its statistics, coefficient intervals, predictive mixture, noise
/// warnings and (on request) refined exponents.
ClassModel fit_noise_aware(const Points& p, const ModelerOptions& options);

/// Held-out (leave-one-out) weighted error of the model the selection chooses, for comparing
/// thread-count class partitions.
double held_out_error(const Points& p, const ModelerOptions& options);

}  // namespace ompscale::modeler

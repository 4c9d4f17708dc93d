#pragma once
// Internal to the modeler: the default preset's noise-aware selection and model averaging
// (docs/methods.md, "Selection" and "Predictions").

#include "modeler/core/points.h"
#include "modeler/core/result.h"
#include "modeler/presets/options.h"

namespace ompscale::modeler {

/// The chosen model with its statistics, coefficient intervals, predictive mixture, noise
/// warnings and (on request) refined exponents.
ClassModel fit_noise_aware(const Points& p, const ModelerOptions& options);

/// Relative variance of the deviations all repetitions of a point share that the selection
/// finds in these points (0 when the repetitions explain the residuals, or without them).
double systematic_variance(const Points& p, const ModelerOptions& options);

/// Held-out (leave-one-out) weighted error of the model the selection chooses when each point's
/// variance includes `systematic` (relative), for comparing thread-count class partitions under
/// one noise model.
double held_out_error(const Points& p, const ModelerOptions& options, double systematic);

}  // namespace ompscale::modeler

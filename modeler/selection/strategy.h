#pragma once
// Internal to the modeler: one kernel's (or class's) points modeled by the strategy the options
// name (selection/noise_aware.h, selection/cross_validated.h, selection/extrap_preset.h).

#include "modeler/core/points.h"
#include "modeler/core/result.h"
#include "modeler/presets/options.h"

namespace ompscale::modeler {

/// The model, statistics, coefficient intervals and predictive distribution of `options.strategy`
/// (the Extra-P strategy's distribution is its model alone, without uncertainty). The points hold
/// at least three thread counts with values the fit can use (core/degenerate.h).
ClassModel fit_with_strategy(const Points& p, const ModelerOptions& options);

}  // namespace ompscale::modeler

#pragma once
// Internal to the modeler: the Extra-P 4.2.5 compatibility preset (ModelerOptions::extrap()),
// its default single-parameter modeler reproduced rule for rule (README, "Extra-P preset").

#include "modeler/core/points.h"
#include "modeler/core/result.h"
#include "modeler/presets/options.h"

namespace ompscale::modeler {

/// The model, statistics and nothing else (Extra-P gives no uncertainty).
ClassModel fit_extrap(const Points& p, const ModelerOptions& options);

}  // namespace ompscale::modeler

#pragma once
// Internal to the modeler: the Extra-P 4.2.5 compatibility preset (ModelerOptions::extrap()),
// its default single-parameter modeler reproduced rule for rule (README, "Extra-P preset").

#include "modeler/options.h"
#include "modeler/points.h"
#include "modeler/result.h"

namespace ompscale::modeler {

/// The model, statistics and nothing else (Extra-P gives no uncertainty).
ClassModel fit_extrap(const Points& p, const ModelerOptions& options);

}  // namespace ompscale::modeler

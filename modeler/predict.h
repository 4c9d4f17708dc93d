#pragma once
// Predictions with intervals from a PredictiveDistribution, and the thread count at which a cost
// budget is exceeded.

#include "modeler/result.h"

namespace ompscale::modeler {

/// The prediction at t: the dominant component's value when one holds more than half the weight,
/// the mixture's median otherwise; and the mixture's central interval at `level` (e.g. 0.9).
Prediction predict(const PredictiveDistribution& distribution, double t, double level);

/// The smallest whole thread count in [from, limit] whose predicted value exceeds `budget`, and
/// the same for the interval's bounds. Searches geometrically, then bisects (Boost.Math).
BudgetCrossing find_budget_crossing(const PredictiveDistribution& distribution, double budget,
                                    double level, double from, double limit);

}  // namespace ompscale::modeler

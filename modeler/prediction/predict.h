#pragma once
// Predictions with intervals from a PredictiveDistribution, and the thread count at which a cost
// budget is exceeded.

#include "modeler/core/result.h"

namespace ompscale::modeler {

/// The prediction at t: the weighted median of the components' values at t (a component holding
/// more than half the weight gives its own; an exact tie, the midpoint of the two around it), and
/// the mixture's central interval at `level` (e.g. 0.9).
Prediction predict(const PredictiveDistribution& distribution, double t, double level);

/// The point prediction alone (predict()'s value), without the interval's quantile searches.
double predicted_value(const PredictiveDistribution& distribution, double t);

/// The predictive distribution's cumulative probability of a value `x` at t (the uncertainty of
/// extrapolating included): a measurement x lies inside the central interval at level L when
/// this lies within [(1 - L) / 2, (1 + L) / 2]. 0.5 without components.
double predictive_cdf(const PredictiveDistribution& distribution, double t, double x);

/// The smallest whole thread count in [from, limit] whose predicted value exceeds `budget`, and
/// the same for the interval's bounds. Searches geometrically, then bisects (Boost.Math).
BudgetCrossing find_budget_crossing(const PredictiveDistribution& distribution, double budget,
                                    double level, double from, double limit);

}  // namespace ompscale::modeler

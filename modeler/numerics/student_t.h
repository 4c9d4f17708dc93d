#pragma once
// Internal to the modeler: the Student t distribution's cdf, fast for the small whole degrees of
// freedom that fits leave (points minus coefficients). Predictions, budget searches and the
// backtests of learning evaluate it thousands of times per kernel; Boost.Math's incomplete beta
// is exact for every dof but costs tens of times more than the finite series below.

namespace ompscale::modeler {

/// P(T <= x) for T ~ Student t with `dof` degrees of freedom (dof > 0). Whole dof up to
/// kSeriesDof: the finite trigonometric series of Abramowitz & Stegun 26.7.3 and 26.7.4; any
/// other dof: Boost.Math.
double student_t_cdf(double x, double dof);
inline constexpr double kSeriesDof = 64.0;

}  // namespace ompscale::modeler

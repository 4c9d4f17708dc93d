#include "modeler/numerics/student_t.h"

#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <numbers>

namespace ompscale::modeler {

namespace {

using Policy = boost::math::policies::policy<boost::math::policies::promote_double<false>>;

/// A(t | n) = P(|T| <= |t|) by Abramowitz & Stegun 26.7.3 (odd n) and 26.7.4 (even n), with
/// theta = atan(|t| / sqrt(n)).
double central_probability(double t, int n) {
  const double theta = std::atan(std::fabs(t) / std::sqrt(static_cast<double>(n)));
  const double s = std::sin(theta), c = std::cos(theta), c2 = c * c;
  if (n % 2 == 0) {
    // sin(theta) * (1 + 1/2 cos^2 + (1*3)/(2*4) cos^4 + ... up to cos^(n-2)).
    double term = 1.0, sum = 1.0;
    for (int k = 2; k <= n - 2; k += 2) {
      term *= c2 * static_cast<double>(k - 1) / static_cast<double>(k);
      sum += term;
    }
    return s * sum;
  }
  // 2/pi * (theta + sin(theta) * (cos + 2/3 cos^3 + (2*4)/(3*5) cos^5 + ... up to cos^(n-2))).
  double inner = 0.0;
  if (n > 1) {
    double term = c;
    inner = term;
    for (int k = 3; k <= n - 2; k += 2) {
      term *= c2 * static_cast<double>(k - 1) / static_cast<double>(k);
      inner += term;
    }
  }
  return 2.0 / std::numbers::pi * (theta + s * inner);
}

}  // namespace

double student_t_cdf(double x, double dof) {
  if (std::isnan(x)) return x;
  if (dof == std::round(dof) && dof >= 1.0 && dof <= kSeriesDof) {
    if (std::isinf(x)) return x > 0.0 ? 1.0 : 0.0;
    const double a = central_probability(x, static_cast<int>(dof));
    return x >= 0.0 ? 0.5 + 0.5 * a : 0.5 - 0.5 * a;
  }
  return boost::math::cdf(boost::math::students_t_distribution<double, Policy>(dof), x);
}

}  // namespace ompscale::modeler

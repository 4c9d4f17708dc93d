#pragma once
// What the modeler's fit must hold for any kernel, however degenerate (all zero, constant,
// negative, one or two thread counts, huge or tiny magnitudes, NaN or infinite values): each model
// has finite coefficients, statistics and predictions, or says why there is none; a kernel of
// fewer than 3 thread counts has none. Shared by the property test (tests/modeler) and the fit
// fuzz harness (tests/fuzz).

#include <cmath>
#include <string>

#include "modeler/core/kernel.h"
#include "modeler/presets/options.h"
#include "modeler/core/result.h"

namespace ompscale::test_support {

/// Distinct thread counts of `kernel` that hold at least one finite value.
inline std::size_t finite_points(const modeler::Kernel& kernel) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < kernel.size(); ++i) {
    for (double v : kernel.repetitions(i)) {
      if (std::isfinite(v)) {
        ++n;
        break;
      }
    }
  }
  return n;
}

/// The first broken invariant of `result` (fit_kernel(kernel, options)), or "".
inline std::string fit_violation(const modeler::Kernel& kernel,
                                 const modeler::ModelerOptions& options,
                                 const modeler::KernelResult& result) {
  if (kernel.sample_count() > 0 && result.models.empty())
    return "no result for a kernel with values";
  const std::size_t points = finite_points(kernel);
  for (const modeler::ClassModel& m : result.models) {
    const std::string where = "class " + m.thread_class + ": ";
    if (!m.has_model()) {
      if (!m.predictions.empty() || m.budget) return where + "predictions without a model";
      if (m.valid || m.worse_than_log) return where + "flags without a model";
      continue;
    }
    if (points < 3 || m.points.size() < 3) return where + "a model from fewer than 3 thread counts";
    if (!std::isfinite(m.model.constant)) return where + "non-finite constant";
    for (const modeler::Term& t : m.model.terms) {
      if (!std::isfinite(t.coefficient)) return where + "non-finite coefficient";
    }
    if (std::isfinite(m.stats.adjusted_r2) && m.stats.adjusted_r2 > 1.0 + 1e-12)
      return where + "adjusted R^2 above 1";
    if (m.predictions.size() != options.predict_at.size()) return where + "missing predictions";
    for (const modeler::Prediction& p : m.predictions) {
      if (std::isnan(p.value)) return where + "NaN prediction at " + std::to_string(p.param);
      if (p.interval.low > p.interval.high) {
        return where + "interval [" + std::to_string(p.interval.low) + ", " +
               std::to_string(p.interval.high) + "] at " + std::to_string(p.param) +
               ": low above high";
      }
    }
    if (m.predictive.components.empty()) return where + "no predictive distribution";
  }
  return "";
}

}  // namespace ompscale::test_support

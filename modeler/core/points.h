#pragma once
// Internal to the modeler: a kernel's (or class's) points ready for fitting, with the noise model
// learnt from the repetitions (docs/methods.md, "Noise model").

#include <cstddef>
#include <vector>

#include "modeler/core/kernel.h"
#include "modeler/core/result.h"
#include "modeler/presets/options.h"

namespace ompscale::modeler {

struct Points {
  std::vector<double> t;
  std::vector<double> y;
  std::vector<double> sd;  ///< standard deviation of each aggregated value
  std::vector<PointSummary> summary;
  double noise_cv = 0.0;   ///< pooled relative spread of one repetition
  double noise_dof = 0.0;  ///< degrees of freedom behind noise_cv
  double typical_reps = 1.0;
  bool noise_from_repetitions = false;
  /// Relative variance of deviations shared by all repetitions of a point (included in sd once
  /// the selection has estimated it; see docs/methods.md, "Systematic deviations").
  double systematic = 0.0;
  /// Weighting::kUniform: every sd is 1 and the noise is absolute, its scale learnt from the
  /// residuals (with_weighting).
  bool uniform = false;

  std::size_t size() const { return t.size(); }
  /// Least-squares weights: 1 / sd^2.
  std::vector<double> weights() const {
    std::vector<double> w;
    w.reserve(sd.size());
    for (double s : sd) w.push_back(1.0 / (s * s));
    return w;
  }
};

/// Aggregates each thread count's repetitions and estimates each aggregated value's noise.
Points summarize(const Kernel& kernel, Aggregation aggregation);
/// The points weighted as `weighting` says: unchanged for the noise, every sd 1 for uniform
/// weights (absolute errors; the repetitions then say nothing of the scale).
Points with_weighting(const Points& p, Weighting weighting);
/// The points at `indices`, with the noise model of `all`.
Points subset(const Points& all, const std::vector<std::size_t>& indices);
/// One term of SMAPE in percent: 200 |a - p| / (|a| + |p|), 0 when both are 0.
double smape_term(double actual, double predicted);
/// Sum of squares around the mean.
double total_sum_of_squares(const std::vector<double>& y);

}  // namespace ompscale::modeler

#pragma once
// Extra-P 4.2.5's default multi-parameter modeler, reproduced rule for rule (README, "Several
// parameters"); `--preset extrap` on inputs with several parameters.
//
//   1. Lines. For each parameter, the measurements are grouped by the values of the other
//      parameters; the longest groups are kept and, at each value of the parameter, the mean
//      of their values becomes one point of that parameter's line.
//   2. One single-parameter model per line (Extra-P's default single-parameter modeler,
//      fit_extrap); each non-constant model contributes its term.
//   3. No term: the mean. One term: the line model's own coefficients or coefficients fitted to
//      all points, whichever has the lower SMAPE. Several terms: the multiplicative and the
//      additive combination and, with two terms, each term added to the product (with three, the
//      21 mixed sums of products Extra-P lists), fitted by least squares to all points; a
//      hypothesis with a term below 0.05% of every measured value is skipped; strictly lower
//      in-sample SMAPE wins, the product first.

#include <cstddef>
#include <string>
#include <vector>

#include "modeler/core/model.h"
#include "modeler/core/result.h"
#include "modeler/multi/multi_model.h"
#include "modeler/presets/options.h"

namespace ompscale::modeler {

/// One aggregated measurement point over several parameters.
struct MultiPoint {
  std::vector<double> x;
  double value = 0.0;
};

struct MultiFit {
  MultiModel model;
  /// In-sample RSS and SMAPE over the points, adjusted R^2 as Extra-P computes it (degrees of
  /// freedom: points - parameter factors - 1), TSS around the mean.
  FitStatistics stats;
  /// The single-parameter model of each parameter's line.
  std::vector<Model> lines;
};

/// `points` must share their dimension (at least 2).
MultiFit fit_extrap_multi(const std::vector<MultiPoint>& points, const ModelerOptions& options);

}  // namespace ompscale::modeler

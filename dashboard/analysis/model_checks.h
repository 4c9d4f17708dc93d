#pragma once
// Model-aware regression checks: for every model dated on or after `since`, against the earlier
// models of the same kernel and thread-count class:
// - the growth class changed (valid models), e.g. logarithmic -> linear: the form of the model
//   that established the growth so far, its coefficients fitted anew to the new points, misses
//   them by more than the practical threshold (SMAPE) beyond the errors both models make on
//   their own points;
// and, against the previous model:
// - the value measured at the largest thread count lies outside the previous model's prediction
//   interval there, and differs from the prediction by more than the practical threshold and the
//   kernel's noise floor;
// - the budget crossing ("too many threads" count) left the previous crossing's interval
//   [threads_early, threads_late].

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "dashboard/analysis/findings.h"
#include "dashboard/store/derived.h"
#include "dashboard/store/history.h"
#include "modeler/core/result.h"

namespace ompscale::dashboard {

struct ModelCheckOptions {
  std::string since;
  double threshold = 0.05;
  double interval_level = 0.99;
  /// The noise floor of a series at a thread count (NaN when unknown).
  std::function<double(std::int64_t series, int threads)> noise_floor;
};

/// The numbers of the growth check: the established model's form refitted to the current
/// model's points, and both models' own errors.
GrowthComparison compare_growth(const modeler::ClassModel& established,
                                const modeler::ClassModel& current);

/// The numbers of the interval check at `threads` (the current model's largest thread count).
IntervalComparison compare_interval(const modeler::ClassModel& previous,
                                    const modeler::ClassModel& current, double threads,
                                    double level);

/// Where the checks get a comparison's numbers: the costly part (the models' documents parsed,
/// refitted, predicted), which a derivation keeps from one night to the next.
struct ModelComparer {
  std::function<GrowthComparison(const ModelPoint& established, const ModelPoint& current)> growth;
  std::function<IntervalComparison(const ModelPoint& previous, const ModelPoint& current)> interval;
};

/// The comparer that parses each ModelPoint's `document`.
ModelComparer document_comparer(double interval_level);

std::vector<Finding> model_findings(std::span<const ModelHistory> histories,
                                    const std::map<std::int64_t, SeriesInfo>& series,
                                    const ModelCheckOptions& options,
                                    const ModelComparer& comparer);

/// The rank of a growth class name, slowest first (decreasing 0 ... superlinear 5); -1 unknown.
int growth_rank(const std::string& growth);

}  // namespace ompscale::dashboard

#include "modeler/presets/options.h"

#include <fmt/format.h>

#include <cmath>

namespace ompscale::modeler {

ModelerOptions ModelerOptions::extrap() {
  ModelerOptions options;
  options.space = HypothesisSpace::extrap_default();
  options.aggregation = Aggregation::kMean;
  options.strategy = Strategy::kExtrap;
  options.held_out_error = HeldOutError::kSmape;
  options.weighting = Weighting::kUniform;
  options.folds = 0;
  options.law_change_per_doubling = 0.0;  // Extra-P gives no intervals
  options.law_change_past_boundary = 0.0;
  options.learn = {.strategy = false, .law_change = false, .lines = false};
  return options;
}

std::string ModelerOptions::validate() const {
  if (!(confidence > 0.0 && confidence < 1.0))
    return fmt::format("confidence {:g}: use a level between 0 and 1, e.g. 0.9", confidence);
  if (!(law_change_per_doubling >= 0.0 && std::isfinite(law_change_per_doubling)))
    return fmt::format(
        "law-change {:g}: use a relative change per doubling of 0 or more, e.g. 0.08 (0 trusts "
        "the measured law beyond the measured thread counts)",
        law_change_per_doubling);
  if (!(law_change_past_boundary >= 0.0 && std::isfinite(law_change_past_boundary)))
    return fmt::format(
        "law-change past a boundary {:g}: use a relative change per doubling of 0 or more",
        law_change_past_boundary);
  if (folds == 1 || folds < 0)
    return fmt::format("folds {}: use 0 (leave-one-out) or k >= 2", folds);
  if (!(valid_adjusted_r2 <= 1.0) || std::isnan(valid_adjusted_r2))
    return fmt::format("valid-r2 {:g}: use an adjusted R^2 of at most 1", valid_adjusted_r2);
  if (!(budget_search_limit >= 1.0) || !std::isfinite(budget_search_limit))
    return fmt::format("budget-limit {:g}: use a thread count of 1 or more", budget_search_limit);
  for (double t : predict_at) {
    if (!(t > 0.0) || !std::isfinite(t))
      return fmt::format("predict {:g}: thread counts are positive", t);
  }
  if (threads < 0) return fmt::format("jobs {}: use 0 (all cores) or more", threads);
  if (strategy == Strategy::kNoiseAware && weighting != Weighting::kNoise)
    return "weighting uniform: the noise-aware strategy weighs each point by its noise; use the "
           "cross-validated strategy (selection smape or rss) for uniform weights";
  if (strategy == Strategy::kExtrap) {
    if (space.max_terms != 1) return "terms: the Extra-P strategy fits one term per hypothesis";
    if (loss != Loss::kLeastSquares || refine_exponents)
      return "loss: the Extra-P strategy fits by least squares with the space's exponents (no "
             "robust loss, no refined exponents)";
    if (model_each_line)
      return "lines each: the Extra-P strategy models one law over all parameters, as Extra-P "
             "does";
  }
  return {};
}

}  // namespace ompscale::modeler

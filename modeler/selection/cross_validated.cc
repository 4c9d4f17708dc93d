#include "modeler/selection/cross_validated.h"

#include "modeler/selection/chosen_model.h"
#include "modeler/selection/deviations.h"
#include "modeler/selection/selection.h"

namespace ompscale::modeler {

ClassModel fit_cross_validated(const Points& measured, const ModelerOptions& options) {
  const SelectionOutcome sel =
      select_hypotheses(with_weighting(measured, options.weighting), options);
  ClassModel result = describe_chosen(sel, options);
  const Candidate& chosen = sel.candidates[sel.chosen];
  // The chosen hypothesis is the model: no averaging, the held-out error has decided.
  result.predictive.components = {make_component(sel.points, chosen, 1.0, sel.noise_scale)};
  if (options.refine_exponents && !chosen.shapes.empty()) refine_chosen(sel, result);
  add_extrapolation_uncertainty(sel, options, result.predictive);
  return result;
}

}  // namespace ompscale::modeler

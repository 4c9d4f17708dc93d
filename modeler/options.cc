#include "modeler/options.h"

namespace ompscale::modeler {

ModelerOptions ModelerOptions::extrap() {
  ModelerOptions options;
  options.space = HypothesisSpace::extrap_default();
  options.aggregation = Aggregation::kMean;
  options.selection = Selection::kSmape;
  options.folds = 0;
  options.extrap_compatible = true;
  options.law_change_per_doubling = 0.0;  // Extra-P gives no intervals
  return options;
}

}  // namespace ompscale::modeler

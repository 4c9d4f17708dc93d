#pragma once
// Hypothesis spaces: which PMNF terms a model may combine.

#include <vector>

#include "modeler/core/model.h"

namespace ompscale::modeler {

struct HypothesisSpace {
  /// Candidate terms, in the order they are tried (the order breaks ties).
  std::vector<TermShape> building_blocks;
  /// Terms per hypothesis besides the constant (1 to 3).
  int max_terms = 1;

  /// The "too many threads" paper: i in {0, 1/4, 1/3, 1/2, 2/3, 3/4, 1, 5/4, 4/3, 3/2, 5/3, 7/4,
  /// 2} times j in {0, 1, 2} (39 shades; i = j = 0 is the constant model), one term.
  static HypothesisSpace paper();
  /// The paper's polynomial exponents {0, 1/4, 1/3, 1/2, 2/3, 3/4, 1, 5/4, 4/3, 3/2, 5/3, 7/4, 2}.
  static const std::vector<double>& paper_exponents();
  /// Extra-P 4.2.5's default single-parameter building blocks (42), in Extra-P's order.
  static HypothesisSpace extrap_default();
  /// Every combination of the given exponents (i = 0 with j = 0 skipped: that is the constant).
  static HypothesisSpace from_exponents(const std::vector<double>& poly_exponents,
                                        const std::vector<int>& log_exponents, int max_terms = 1);
  /// Adds t^(-i) for every positive i in the space, for strong-scaling data (time ~ 1/t).
  HypothesisSpace with_negative_exponents() const;
  /// Drops building blocks with a log factor (needed when a parameter value is below 1).
  HypothesisSpace without_log_terms() const;

  /// All hypotheses: every combination of 1..max_terms distinct building blocks (in order).
  std::vector<std::vector<TermShape>> hypotheses() const;
};

}  // namespace ompscale::modeler

#include "modeler/core/hypothesis.h"

#include <functional>

namespace ompscale::modeler {

namespace {
const std::vector<double> kPaperExponents = {0.0,     1.0 / 4, 1.0 / 3, 1.0 / 2, 2.0 / 3,
                                             3.0 / 4, 1.0,     5.0 / 4, 4.0 / 3, 3.0 / 2,
                                             5.0 / 3, 7.0 / 4, 2.0};
}  // namespace

const std::vector<double>& HypothesisSpace::paper_exponents() {
  return kPaperExponents;
}

HypothesisSpace HypothesisSpace::paper() {
  return from_exponents(kPaperExponents, {0, 1, 2}, 1);
}

HypothesisSpace HypothesisSpace::extrap_default() {
  // Extra-P 4.2.5's single-parameter default building blocks (numerator, denominator, log
  // exponent), in the order its SingleParameterModeler tries them; the order breaks SMAPE ties.
  static constexpr int kBlocks[][3] = {
      {0, 1, 1}, {0, 1, 2}, {1, 4, 0}, {1, 3, 0}, {1, 4, 1},  {1, 3, 1}, {1, 4, 2},
      {1, 3, 2}, {1, 2, 0}, {1, 2, 1}, {1, 2, 2}, {2, 3, 0},  {3, 4, 0}, {2, 3, 1},
      {3, 4, 1}, {4, 5, 0}, {2, 3, 2}, {3, 4, 2}, {1, 1, 0},  {1, 1, 1}, {1, 1, 2},
      {5, 4, 0}, {5, 4, 1}, {4, 3, 0}, {4, 3, 1}, {3, 2, 0},  {3, 2, 1}, {3, 2, 2},
      {5, 3, 0}, {7, 4, 0}, {2, 1, 0}, {2, 1, 1}, {2, 1, 2},  {9, 4, 0}, {7, 3, 0},
      {5, 2, 0}, {5, 2, 1}, {5, 2, 2}, {8, 3, 0}, {11, 4, 0}, {3, 1, 0}, {3, 1, 1},
  };
  HypothesisSpace space;
  for (const auto& b : kBlocks) {
    space.building_blocks.push_back({static_cast<double>(b[0]) / b[1], b[2]});
  }
  return space;
}

HypothesisSpace HypothesisSpace::from_exponents(const std::vector<double>& poly_exponents,
                                                const std::vector<int>& log_exponents,
                                                int max_terms) {
  HypothesisSpace space;
  space.max_terms = max_terms;
  for (double i : poly_exponents) {
    for (int j : log_exponents) {
      if (i == 0.0 && j == 0) continue;  // the constant model is always tried separately
      space.building_blocks.push_back({i, j});
    }
  }
  return space;
}

HypothesisSpace HypothesisSpace::with_negative_exponents() const {
  HypothesisSpace space = *this;
  for (const TermShape& shape : building_blocks) {
    if (shape.exponent > 0.0)
      space.building_blocks.push_back({-shape.exponent, shape.log_exponent});
  }
  return space;
}

HypothesisSpace HypothesisSpace::without_log_terms() const {
  HypothesisSpace space = *this;
  std::erase_if(space.building_blocks, [](const TermShape& s) { return s.log_exponent != 0; });
  return space;
}

std::vector<std::vector<TermShape>> HypothesisSpace::hypotheses() const {
  std::vector<std::vector<TermShape>> out;
  std::vector<TermShape> current;
  std::function<void(std::size_t)> extend = [&](std::size_t first) {
    for (std::size_t b = first; b < building_blocks.size(); ++b) {
      current.push_back(building_blocks[b]);
      out.push_back(current);
      if (static_cast<int>(current.size()) < max_terms) extend(b + 1);
      current.pop_back();
    }
  };
  extend(0);
  return out;
}

}  // namespace ompscale::modeler

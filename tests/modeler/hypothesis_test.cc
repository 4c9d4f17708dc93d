// Hypothesis spaces: the paper's and Extra-P's building blocks, combinations, variants.

#include "modeler/core/hypothesis.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

namespace ompscale::modeler {
namespace {

bool contains(const std::vector<TermShape>& blocks, TermShape shape) {
  return std::find(blocks.begin(), blocks.end(), shape) != blocks.end();
}

TEST(HypothesisSpace, PaperHas38BuildingBlocks) {
  const HypothesisSpace space = HypothesisSpace::paper();
  // 13 exponents x 3 log exponents = 39 shades, minus the constant.
  ASSERT_EQ(space.building_blocks.size(), 38u);
  EXPECT_EQ(space.max_terms, 1);
  EXPECT_FALSE(contains(space.building_blocks, {0.0, 0}));
  const std::vector<double> exponents = {0.0,     1.0 / 4, 1.0 / 3, 1.0 / 2, 2.0 / 3, 3.0 / 4, 1.0,
                                         5.0 / 4, 4.0 / 3, 3.0 / 2, 5.0 / 3, 7.0 / 4, 2.0};
  for (double i : exponents) {
    for (int j : {0, 1, 2}) {
      if (i == 0.0 && j == 0) continue;
      EXPECT_TRUE(contains(space.building_blocks, {i, j})) << i << " " << j;
    }
  }
  // No duplicates.
  std::set<std::pair<double, int>> unique;
  for (const TermShape& s : space.building_blocks) unique.insert({s.exponent, s.log_exponent});
  EXPECT_EQ(unique.size(), 38u);
  // Order: exponent-major, log exponent-minor.
  EXPECT_EQ(space.building_blocks.front(), (TermShape{0.0, 1}));
  EXPECT_EQ(space.building_blocks[1], (TermShape{0.0, 2}));
  EXPECT_EQ(space.building_blocks[2], (TermShape{0.25, 0}));
  EXPECT_EQ(space.building_blocks.back(), (TermShape{2.0, 2}));
  // One term per hypothesis: as many hypotheses as building blocks.
  EXPECT_EQ(space.hypotheses().size(), 38u);
}

// Extra-P 4.2.5's create_default_building_blocks(allow_log_terms=True), as (numerator,
// denominator, log exponent), in the order Extra-P lists them
// (extrap/modelers/single_parameter/basic.py).
const std::vector<std::tuple<int, int, int>> kExtrapBlocks = {
    {0, 1, 1}, {0, 1, 2}, {1, 4, 0}, {1, 3, 0}, {1, 4, 1},  {1, 3, 1}, {1, 4, 2},
    {1, 3, 2}, {1, 2, 0}, {1, 2, 1}, {1, 2, 2}, {2, 3, 0},  {3, 4, 0}, {2, 3, 1},
    {3, 4, 1}, {4, 5, 0}, {2, 3, 2}, {3, 4, 2}, {1, 1, 0},  {1, 1, 1}, {1, 1, 2},
    {5, 4, 0}, {5, 4, 1}, {4, 3, 0}, {4, 3, 1}, {3, 2, 0},  {3, 2, 1}, {3, 2, 2},
    {5, 3, 0}, {7, 4, 0}, {2, 1, 0}, {2, 1, 1}, {2, 1, 2},  {9, 4, 0}, {7, 3, 0},
    {5, 2, 0}, {5, 2, 1}, {5, 2, 2}, {8, 3, 0}, {11, 4, 0}, {3, 1, 0}, {3, 1, 1}};

TEST(HypothesisSpace, ExtrapDefaultHas42BlocksInOrder) {
  const HypothesisSpace space = HypothesisSpace::extrap_default();
  ASSERT_EQ(space.building_blocks.size(), 42u);
  EXPECT_EQ(space.max_terms, 1);
  const auto& b = space.building_blocks;
  EXPECT_EQ(b[0], (TermShape{0.0, 1}));
  EXPECT_EQ(b[1], (TermShape{0.0, 2}));
  EXPECT_EQ(b[2], (TermShape{0.25, 0}));
  EXPECT_EQ(b[41], (TermShape{3.0, 1}));
  EXPECT_EQ(b[40], (TermShape{3.0, 0}));
  // Same set as Extra-P's list (order aside), no duplicates.
  std::set<std::pair<double, int>> ours, extrap;
  for (const TermShape& s : b) ours.insert({s.exponent, s.log_exponent});
  for (const auto& [num, den, j] : kExtrapBlocks) {
    extrap.insert({static_cast<double>(num) / den, j});
  }
  EXPECT_EQ(ours.size(), 42u);
  EXPECT_EQ(ours, extrap);
  EXPECT_FALSE(contains(b, {0.0, 0}));
}

TEST(HypothesisSpace, ExtrapDefaultFollowsExtrapListOrder) {
  // options.h / hypothesis.h promise "Extra-P 4.2.5's default single-parameter building blocks
  // (42), in Extra-P's order"; the order breaks SMAPE ties in the extrap preset.
  const HypothesisSpace space = HypothesisSpace::extrap_default();
  ASSERT_EQ(space.building_blocks.size(), kExtrapBlocks.size());
  std::size_t first_mismatch = kExtrapBlocks.size();
  for (std::size_t k = 0; k < kExtrapBlocks.size(); ++k) {
    const auto& [num, den, j] = kExtrapBlocks[k];
    const TermShape want{static_cast<double>(num) / den, j};
    if (!(space.building_blocks[k] == want)) {
      first_mismatch = k;
      break;
    }
  }
  // Extra-P interleaves the exponents (t^(1/4), t^(1/3), t^(1/4)*log, t^(1/3)*log, ...).
  EXPECT_EQ(first_mismatch, kExtrapBlocks.size())
      << "extrap_default() does not list the building blocks in Extra-P's order; first "
         "difference at index "
      << first_mismatch;
}

TEST(HypothesisSpace, FromExponentsAllPairs) {
  const HypothesisSpace space = HypothesisSpace::from_exponents({0.0, 1.0, 2.0}, {0, 1}, 2);
  // Blocks: log, t, t log, t^2, t^2 log (constant skipped).
  const std::vector<TermShape> want = {{0.0, 1}, {1.0, 0}, {1.0, 1}, {2.0, 0}, {2.0, 1}};
  ASSERT_EQ(space.building_blocks, want);
  EXPECT_EQ(space.max_terms, 2);
  const auto h = space.hypotheses();
  // 5 singles + C(5, 2) = 10 pairs.
  ASSERT_EQ(h.size(), 15u);
  std::size_t singles = 0;
  std::set<std::pair<std::size_t, std::size_t>> pairs;
  for (const auto& shapes : h) {
    ASSERT_GE(shapes.size(), 1u);
    ASSERT_LE(shapes.size(), 2u);
    if (shapes.size() == 1) {
      ++singles;
      continue;
    }
    const auto a =
        static_cast<std::size_t>(std::find(want.begin(), want.end(), shapes[0]) - want.begin());
    const auto b =
        static_cast<std::size_t>(std::find(want.begin(), want.end(), shapes[1]) - want.begin());
    ASSERT_LT(a, want.size());
    ASSERT_LT(b, want.size());
    EXPECT_LT(a, b) << "pairs keep building block order and never repeat a block";
    pairs.insert({a, b});
  }
  EXPECT_EQ(singles, 5u);
  EXPECT_EQ(pairs.size(), 10u);
  // Order: depth first in building block order.
  EXPECT_EQ(h[0], (std::vector<TermShape>{{0.0, 1}}));
  EXPECT_EQ(h[1], (std::vector<TermShape>{{0.0, 1}, {1.0, 0}}));
  EXPECT_EQ(h.back(), (std::vector<TermShape>{{2.0, 1}}));
}

TEST(HypothesisSpace, ThreeTermsCountsCombinations) {
  const HypothesisSpace space = HypothesisSpace::from_exponents({0.5, 1.0, 1.5, 2.0}, {0}, 3);
  ASSERT_EQ(space.building_blocks.size(), 4u);
  // C(4,1) + C(4,2) + C(4,3) = 4 + 6 + 4.
  EXPECT_EQ(space.hypotheses().size(), 14u);
}

TEST(HypothesisSpace, WithNegativeExponents) {
  const HypothesisSpace base = HypothesisSpace::from_exponents({0.0, 0.5, 1.0}, {0, 1});
  // base: log, t^(1/2), t^(1/2) log, t, t log
  ASSERT_EQ(base.building_blocks.size(), 5u);
  const HypothesisSpace neg = base.with_negative_exponents();
  const std::vector<TermShape> want = {{0.0, 1},  {0.5, 0},  {0.5, 1},  {1.0, 0}, {1.0, 1},
                                       {-0.5, 0}, {-0.5, 1}, {-1.0, 0}, {-1.0, 1}};
  EXPECT_EQ(neg.building_blocks, want);
  EXPECT_EQ(neg.max_terms, base.max_terms);
  EXPECT_EQ(base.building_blocks.size(), 5u) << "the original is left alone";
  // The paper space: 12 positive exponents x 3 log exponents mirrored.
  EXPECT_EQ(HypothesisSpace::paper().with_negative_exponents().building_blocks.size(), 38u + 36u);
}

TEST(HypothesisSpace, WithoutLogTerms) {
  const HypothesisSpace paper = HypothesisSpace::paper().without_log_terms();
  ASSERT_EQ(paper.building_blocks.size(), 12u);
  for (const TermShape& s : paper.building_blocks) {
    EXPECT_EQ(s.log_exponent, 0);
    EXPECT_GT(s.exponent, 0.0);
  }
  EXPECT_EQ(paper.building_blocks.front(), (TermShape{0.25, 0}));
  EXPECT_EQ(paper.building_blocks.back(), (TermShape{2.0, 0}));
  const HypothesisSpace extrap = HypothesisSpace::extrap_default().without_log_terms();
  // Extra-P's list without log terms has 19 blocks.
  EXPECT_EQ(extrap.building_blocks.size(), 19u);
}

TEST(HypothesisSpace, EmptySpaceHasNoHypotheses) {
  HypothesisSpace space;
  space.max_terms = 3;
  EXPECT_TRUE(space.hypotheses().empty());
}

}  // namespace
}  // namespace ompscale::modeler

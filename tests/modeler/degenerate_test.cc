// Degenerate kernels: all zero, constant, negative, one or two thread counts, huge or tiny
// magnitudes, NaN and infinite values. A property test over generated kernels and every way of
// fitting them: a model or a stated reason for having none, never a crash (an all-zero kernel
// used to crash fit_noise_aware) and never a model from fewer than 3 thread counts.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "modeler/fit.h"
#include "platforms/thread_class.h"
#include "tests/support/fit_invariants.h"

namespace ompscale::modeler {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

enum class Shape { kZero, kConstant, kNegative, kMixedSign, kHuge, kTiny, kNonFinite, kSpiky };
constexpr Shape kShapes[] = {Shape::kZero, Shape::kConstant, Shape::kNegative,  Shape::kMixedSign,
                             Shape::kHuge, Shape::kTiny,     Shape::kNonFinite, Shape::kSpiky};

double value_of(Shape shape, double t, std::mt19937_64& rng) {
  const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;  // [0, 1)
  switch (shape) {
    case Shape::kZero:
      return 0.0;
    case Shape::kConstant:
      return 2.5;
    case Shape::kNegative:
      return -(1.0 + t) * (1.0 + 0.1 * u);
    case Shape::kMixedSign:
      return (u - 0.5) * t;
    case Shape::kHuge:
      return std::ldexp(1.0 + t * u, 300 + static_cast<int>(rng() % 700));
    case Shape::kTiny:
      return std::ldexp(1.0 + t * u, -300 - static_cast<int>(rng() % 770));
    case Shape::kNonFinite: {
      const double choices[] = {kNaN, kInf, -kInf, 1.0 + t, 0.0};
      return choices[rng() % 5];
    }
    case Shape::kSpiky:
      return rng() % 7 == 0 ? 1e6 * t : t * (1.0 + u);
  }
  return 0.0;
}

Kernel generate(Shape shape, std::size_t points, std::size_t reps, std::mt19937_64& rng) {
  std::vector<Sample> samples;
  for (std::size_t i = 0; i < points; ++i) {
    const double t = static_cast<double>(1u << i);
    for (std::size_t r = 0; r < reps; ++r) samples.push_back({t, value_of(shape, t, rng)});
  }
  return Kernel::from_samples({"k"}, std::move(samples));
}

std::vector<ModelerOptions> every_way_of_fitting() {
  std::vector<ModelerOptions> ways(9);
  ways[1] = ModelerOptions::extrap();
  ways[2].class_mode = ClassMode::kAuto;
  ways[2].classes = platforms::paper_partition();
  ways[3].class_mode = ClassMode::kList;
  ways[3].classes = {platforms::ThreadClass::parse("small=1,2,4")};
  ways[4].budget = BudgetSpec{4.0, true, ""};
  ways[5].budget = BudgetSpec{1.0, false, ""};
  ways[6].space = ways[6].space.with_negative_exponents();
  ways[7].loss = Loss::kHuber;
  ways[8].refine_exponents = true;
  ways[8].folds = 3;
  for (ModelerOptions& o : ways) o.predict_at = {64, 1e6};
  return ways;
}

TEST(DegenerateKernels, EveryShapeGivesAModelOrAReasonNeverACrash) {
  std::mt19937_64 rng(13);
  const std::vector<ModelerOptions> ways = every_way_of_fitting();
  int checked = 0;
  for (Shape shape : kShapes) {
    for (std::size_t points : {1, 2, 3, 5, 8}) {
      for (std::size_t reps : {1, 3}) {
        const Kernel kernel = generate(shape, points, reps, rng);
        for (std::size_t w = 0; w < ways.size(); ++w) {
          const KernelResult result = fit_kernel(kernel, ways[w]);
          const std::string violation = test_support::fit_violation(kernel, ways[w], result);
          EXPECT_EQ(violation, "") << "shape " << static_cast<int>(shape) << ", " << points
                                   << " points x " << reps << " reps, way " << w;
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 8 * 5 * 2 * 9);
}

TEST(DegenerateKernels, AllZeroIsTheConstantZero) {
  std::mt19937_64 rng(1);
  for (const ModelerOptions& options : every_way_of_fitting()) {
    const KernelResult r = fit_kernel(generate(Shape::kZero, 4, 3, rng), options);
    ASSERT_FALSE(r.models.empty());
    for (const ClassModel& m : r.models) {
      if (!m.has_model()) continue;  // a class of fewer than 3 thread counts
      EXPECT_EQ(m.model.constant, 0.0);
      EXPECT_TRUE(m.model.terms.empty());
      for (const Prediction& p : m.predictions) EXPECT_EQ(p.value, 0.0);
    }
  }
}

TEST(DegenerateKernels, FewerThanThreeThreadCountsGiveNoModel) {
  std::mt19937_64 rng(2);
  for (std::size_t points : {1, 2}) {
    const KernelResult r = fit_kernel(generate(Shape::kNegative, points, 3, rng), {});
    ASSERT_EQ(r.models.size(), 1u);
    const ClassModel& m = r.models[0];
    EXPECT_FALSE(m.has_model());
    EXPECT_NE(m.no_model.find("a model needs 3 or more"), std::string::npos) << m.no_model;
    EXPECT_TRUE(std::isnan(m.stats.adjusted_r2));  // nothing to support an adjusted R^2
    EXPECT_EQ(m.points.size(), points);
    EXPECT_FALSE(m.valid);
  }
}

TEST(DegenerateKernels, NonFiniteValuesAreLeftOutWithAWarning) {
  const Kernel kernel = Kernel::from_samples(
      {"k"}, {{1, 1.0}, {1, kNaN}, {2, 2.0}, {2, kInf}, {4, 4.0}, {8, 8.0}, {16, -kInf}});
  const KernelResult r = fit_kernel(kernel, {});
  ASSERT_EQ(r.models.size(), 1u);
  const ClassModel& m = r.models[0];
  ASSERT_TRUE(m.has_model()) << m.no_model;
  EXPECT_EQ(m.points.size(), 4u);  // 16 had only -inf
  ASSERT_FALSE(m.warnings.empty());
  EXPECT_EQ(m.warnings.back(), "3 NaN or infinite values left out");

  const KernelResult none =
      fit_kernel(Kernel::from_samples({"k"}, {{1, kNaN}, {2, kInf}, {4, kNaN}}), {});
  ASSERT_EQ(none.models.size(), 1u);
  EXPECT_EQ(none.models[0].no_model, "no finite value: 3 NaN or infinite values left out");
}

TEST(DegenerateKernels, MagnitudesOutsideTheWeightsRangeAreNamed) {
  std::mt19937_64 rng(3);
  for (double scale : {1e-200, 1e200}) {
    std::vector<Sample> samples;
    for (double t : {1.0, 2.0, 4.0, 8.0}) samples.push_back({t, scale * t});
    const KernelResult r = fit_kernel(Kernel::from_samples({"k"}, samples), {});
    ASSERT_EQ(r.models.size(), 1u);
    EXPECT_NE(r.models[0].no_model.find("express them in another unit"), std::string::npos)
        << scale << ": " << r.models[0].no_model;
  }
  // Small and large values that are still ordinary get a model.
  for (double scale : {1e-30, 1e30}) {
    std::vector<Sample> samples;
    for (double t : {1.0, 2.0, 4.0, 8.0}) samples.push_back({t, scale * (1.0 + t)});
    const KernelResult r = fit_kernel(Kernel::from_samples({"k"}, samples), {});
    ASSERT_EQ(r.models.size(), 1u);
    EXPECT_TRUE(r.models[0].has_model()) << scale << ": " << r.models[0].no_model;
  }
}

}  // namespace
}  // namespace ompscale::modeler

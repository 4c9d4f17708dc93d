// fit_two_parameters: slices propose terms, combinations compete by leave-one-out; generated data
// with known ground truth must come back with the right combination, terms and coefficients.

#include "modeler/multi/multi_parameter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <stdexcept>
#include <vector>

#include "modeler/multi/multi_model.h"

namespace ompscale::modeler {
namespace {

const std::vector<double> kFirstParameterThreads = {1, 2, 4, 8, 16};

/// `reps` repetitions of f at every (t, n), each times (1 + noise * U[-1, 1)).
std::vector<Sample2> grid(const std::function<double(double, double)>& f,
                          const std::vector<double>& ts, const std::vector<double>& ns,
                          int reps = 1, double noise = 0.0, std::uint64_t seed = 7) {
  std::mt19937_64 rng(seed);
  std::vector<Sample2> out;
  for (double t : ts) {
    for (double n : ns) {
      for (int r = 0; r < reps; ++r) {
        const double u = static_cast<double>(rng() >> 11) * 0x1.0p-52 - 1.0;
        out.push_back({t, n, f(t, n) * (1.0 + noise * u)});
      }
    }
  }
  return out;
}

TEST(MultiParameter, ProductOfLinearThreadsAndLogInputIsMultiplicative) {
  const auto samples = grid([](double t, double n) { return 2.0 + 0.5 * t * std::log2(n); },
                            kFirstParameterThreads, {16, 32, 64, 128, 256});
  const TwoParameterResult r = fit_two_parameters(samples);
  EXPECT_EQ(r.model.combination, Combination::kMultiplicative);
  EXPECT_EQ(r.model.first, (TermShape{1.0, 0}));
  EXPECT_EQ(r.model.second, (TermShape{0.0, 1}));
  EXPECT_NEAR(r.model.constant, 2.0, 1e-9);
  EXPECT_NEAR(r.model.product_coefficient, 0.5, 1e-12);
  EXPECT_LT(r.stats.cv_error, 1e-6);
  EXPECT_EQ(r.stats.points, 25u);
  EXPECT_EQ(r.model.to_string("t", "n"), "2 + 0.5 * t^(1) * log2(n)^(1)");
  // Every slice proposed the true term: 5 slices over t, 5 over n.
  ASSERT_EQ(r.slices.size(), 10u);
  for (const SliceModel& s : r.slices) {
    ASSERT_NE(s.model.leading_term(), nullptr);
    EXPECT_EQ(s.model.leading_term()->shape, s.parameter == 0 ? r.model.first : r.model.second);
  }
}

TEST(MultiParameter, SumOfLinearThreadsAndSquaredInputIsAdditive) {
  const auto samples = grid([](double t, double n) { return 3.0 + t + n * n; },
                            kFirstParameterThreads, {1, 2, 3, 4, 5});
  const TwoParameterResult r = fit_two_parameters(samples);
  EXPECT_EQ(r.model.combination, Combination::kAdditive);
  EXPECT_EQ(r.model.first, (TermShape{1.0, 0}));
  EXPECT_EQ(r.model.second, (TermShape{2.0, 0}));
  EXPECT_NEAR(r.model.constant, 3.0, 1e-8);
  EXPECT_NEAR(r.model.first_coefficient, 1.0, 1e-9);
  EXPECT_NEAR(r.model.second_coefficient, 1.0, 1e-9);
  EXPECT_NEAR(r.model.evaluate(32.0, 10.0), 3.0 + 32.0 + 100.0, 1e-6);
  // The full hypothesis fits as well, but its product term contributes nothing: dropped.
  bool saw_full = false;
  for (const auto& c : r.candidates) {
    if (c.model.combination == Combination::kFull && c.model.first == r.model.first &&
        c.model.second == r.model.second) {
      saw_full = true;
      EXPECT_TRUE(c.negligible_term);
    }
  }
  EXPECT_TRUE(saw_full);
}

TEST(MultiParameter, SumAndProductTogetherNeedTheFullCombination) {
  const auto samples =
      grid([](double t, double n) { return 1.0 + 2.0 * t + 3.0 * n + 0.5 * t * n; },
           kFirstParameterThreads, {1, 2, 4, 8, 16});
  const TwoParameterResult r = fit_two_parameters(samples);
  EXPECT_EQ(r.model.combination, Combination::kFull);
  EXPECT_NEAR(r.model.first_coefficient, 2.0, 1e-9);
  EXPECT_NEAR(r.model.second_coefficient, 3.0, 1e-9);
  EXPECT_NEAR(r.model.product_coefficient, 0.5, 1e-9);
}

TEST(MultiParameter, StrongScalingWithNegativeExponents) {
  // Region time: a constant part plus work growing with n^2 shared by t threads, 1% noise.
  TwoParameterOptions options;
  options.first_options.space = HypothesisSpace::paper().with_negative_exponents();
  int recovered = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const auto samples = grid([](double t, double n) { return 0.01 + 2e-6 * n * n / t; },
                              {1, 2, 4, 8}, {256, 512, 1024, 2048}, 3, 0.01, seed);
    const TwoParameterResult r = fit_two_parameters(samples, options);
    EXPECT_NEAR(r.model.product_coefficient, 2e-6, 2e-6 * 0.02) << "seed " << seed;
    EXPECT_GT(r.stats.adjusted_r2, 0.99);
    recovered += r.model.combination == Combination::kMultiplicative &&
                 r.model.first == TermShape{-1.0, 0} && r.model.second == TermShape{2.0, 0};
  }
  // The one-standard-error rule keeps noise from buying extra terms in most draws.
  EXPECT_GE(recovered, 18);
}

TEST(MultiParameter, NoisyProductStillRecovered) {
  const auto samples = grid([](double t, double n) { return 2.0 + 0.5 * t * std::log2(n); },
                            kFirstParameterThreads, {16, 32, 64, 128, 256}, 5, 0.03, 11);
  const TwoParameterResult r = fit_two_parameters(samples);
  EXPECT_EQ(r.model.combination, Combination::kMultiplicative);
  EXPECT_EQ(r.model.first, (TermShape{1.0, 0}));
  EXPECT_EQ(r.model.second, (TermShape{0.0, 1}));
  EXPECT_NEAR(r.model.product_coefficient, 0.5, 0.02);
}

TEST(MultiParameter, ParameterWithoutEffectGetsNoTerm) {
  const auto samples = grid([](double t, double) { return 4.0 + 2.0 * std::sqrt(t); },
                            kFirstParameterThreads, {10, 20, 40, 80});
  const TwoParameterResult r = fit_two_parameters(samples);
  EXPECT_EQ(r.model.combination, Combination::kFirstOnly);
  EXPECT_TRUE(r.model.uses_first());
  EXPECT_FALSE(r.model.uses_second());
  EXPECT_EQ(r.model.first, (TermShape{0.5, 0}));
  EXPECT_NEAR(r.model.first_coefficient, 2.0, 1e-9);
  EXPECT_EQ(r.model.to_string("t", "n"), "4 + 2 * t^(1/2)");
}

TEST(MultiParameter, TwoInputSizesAreTooFewForATermAndSaySo) {
  const auto samples =
      grid([](double t, double n) { return 1.0 + n / t; }, {1, 2, 4, 8}, {100, 200});
  TwoParameterOptions options;
  options.first_options.space = HypothesisSpace::paper().with_negative_exponents();
  const TwoParameterResult r = fit_two_parameters(samples, options);
  EXPECT_FALSE(r.model.uses_second());
  EXPECT_TRUE(r.model.uses_first());
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_NE(r.warnings.front().find("no term in n"), std::string::npos) << r.warnings.front();
}

TEST(MultiParameter, CandidatesAreTriedFewestCoefficientsFirst) {
  const auto samples = grid([](double t, double n) { return 2.0 + 0.5 * t * std::log2(n); },
                            kFirstParameterThreads, {16, 32, 64, 128, 256});
  const TwoParameterResult r = fit_two_parameters(samples);
  ASSERT_FALSE(r.candidates.empty());
  EXPECT_EQ(r.candidates.front().model.combination, Combination::kConstant);
  auto count = [](const TwoParameterModel& m) {
    switch (m.combination) {
      case Combination::kConstant:
        return 1;
      case Combination::kFirstOnly:
      case Combination::kSecondOnly:
      case Combination::kMultiplicative:
        return 2;
      case Combination::kFull:
        return 4;
      default:
        return 3;
    }
  };
  for (std::size_t i = 1; i < r.candidates.size(); ++i) {
    EXPECT_LE(count(r.candidates[i - 1].model), count(r.candidates[i].model));
  }
}

TEST(MultiParameter, EmptyAndInvalidInputs) {
  const TwoParameterResult empty = fit_two_parameters({});
  EXPECT_EQ(empty.model.combination, Combination::kConstant);
  EXPECT_FALSE(empty.warnings.empty());
  const std::vector<Sample2> bad = {{0.0, 1.0, 1.0}};
  EXPECT_THROW(fit_two_parameters(bad), std::invalid_argument);
}

}  // namespace
}  // namespace ompscale::modeler

// The numbers of a model are read by common/text.h's parser: one optional sign, and a message
// that names the position of what is not a number.
namespace ompscale::modeler {
namespace {

TEST(ParseMultiModel, NumbersTakeOneSignAndBadOnesNameThePosition) {
  const MultiModel model = parse_multi_model("2 + -0.5 * p^(3/2) * log2(s)^(1)", {"p", "s"});
  EXPECT_EQ(model.constant, 2.0);
  ASSERT_EQ(model.terms.size(), 1u);
  EXPECT_EQ(model.terms[0].coefficient, -0.5);
  EXPECT_EQ(model.terms[0].factors[0].shape.exponent, 1.5);
  EXPECT_EQ(parse_multi_model("+1e3", {}).constant, 1000.0);
  const auto message = [](const char* text) {
    try {
      parse_multi_model(text, {"p"});
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message("2 + --1 * p"),
            "cannot parse model '2 + --1 * p' at position 4: expected a number");
  EXPECT_EQ(message("2 * p^(x)"),
            "cannot parse model '2 * p^(x)' at position 7: expected a number");
  EXPECT_EQ(message("2 * p^(1/0)"),
            "cannot parse model '2 * p^(1/0)' at position 10: zero denominator");
}

}  // namespace
}  // namespace ompscale::modeler

// Model: term evaluation, growth classes, Extra-P notation (format and parse).

#include "modeler/core/model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace ompscale::modeler {
namespace {

// --- TermShape::evaluate --------------------------------------------------------------------

TEST(TermShape, EvaluatesPowerTimesLogPower) {
  // t^(3/2) * log2(t)^2 at t = 16: 64 * 16 = 1024.
  EXPECT_DOUBLE_EQ((TermShape{1.5, 2}.evaluate(16.0)), 1024.0);
  // t^2 at t = 3: 9.
  EXPECT_DOUBLE_EQ((TermShape{2.0, 0}.evaluate(3.0)), 9.0);
  // log2(t) at t = 8: 3.
  EXPECT_DOUBLE_EQ((TermShape{0.0, 1}.evaluate(8.0)), 3.0);
  // log2(t)^2 at t = 32: 25.
  EXPECT_DOUBLE_EQ((TermShape{0.0, 2}.evaluate(32.0)), 25.0);
  // t^(1/4) at t = 16: 2.
  EXPECT_DOUBLE_EQ((TermShape{0.25, 0}.evaluate(16.0)), 2.0);
  // t^(-1/2) at t = 4: 1/2.
  EXPECT_DOUBLE_EQ((TermShape{-0.5, 0}.evaluate(4.0)), 0.5);
  // t * log2(t) at t = 4: 8.
  EXPECT_DOUBLE_EQ((TermShape{1.0, 1}.evaluate(4.0)), 8.0);
}

TEST(TermShape, LogFactorAtOneThread) {
  // log2(1) = 0: any log factor vanishes; log2(t)^0 is 1 even at t = 1.
  EXPECT_DOUBLE_EQ((TermShape{0.0, 1}.evaluate(1.0)), 0.0);
  EXPECT_DOUBLE_EQ((TermShape{2.0, 2}.evaluate(1.0)), 0.0);
  EXPECT_DOUBLE_EQ((TermShape{2.0, 0}.evaluate(1.0)), 1.0);
  EXPECT_DOUBLE_EQ((TermShape{0.5, 0}.evaluate(1.0)), 1.0);
  EXPECT_DOUBLE_EQ((TermShape{0.0, 0}.evaluate(1.0)), 1.0);
}

TEST(TermShape, Equality) {
  EXPECT_EQ((TermShape{0.5, 1}), (TermShape{0.5, 1}));
  EXPECT_NE((TermShape{0.5, 1}), (TermShape{0.5, 2}));
  EXPECT_NE((TermShape{0.5, 1}), (TermShape{0.25, 1}));
}

// --- Model::evaluate ------------------------------------------------------------------------

TEST(Model, EvaluatesConstantPlusTerms) {
  Model m;
  m.constant = 2.0;
  m.terms.push_back({3.0, {1.0, 0}});   // 3 t
  m.terms.push_back({-0.5, {0.0, 2}});  // -0.5 log2(t)^2
  // t = 8: 2 + 24 - 0.5 * 9 = 21.5
  EXPECT_DOUBLE_EQ(m.evaluate(8.0), 21.5);
  // t = 1: 2 + 3 - 0 = 5
  EXPECT_DOUBLE_EQ(m.evaluate(1.0), 5.0);
  Model constant;
  constant.constant = 4.068;
  EXPECT_DOUBLE_EQ(constant.evaluate(1.0), 4.068);
  EXPECT_DOUBLE_EQ(constant.evaluate(1000.0), 4.068);
}

// --- growth ---------------------------------------------------------------------------------

Model one_term(double constant, double coefficient, double i, int j) {
  Model m;
  m.constant = constant;
  m.terms.push_back({coefficient, {i, j}});
  return m;
}

TEST(ModelGrowth, Classes) {
  EXPECT_EQ(Model{}.growth(), GrowthClass::kConstant);
  EXPECT_EQ(one_term(1, 2, 0.0, 1).growth(), GrowthClass::kLogarithmic);
  EXPECT_EQ(one_term(1, 2, 0.0, 2).growth(), GrowthClass::kLogarithmic);
  EXPECT_EQ(one_term(1, 2, 0.5, 0).growth(), GrowthClass::kSublinear);
  EXPECT_EQ(one_term(1, 2, 0.75, 2).growth(), GrowthClass::kSublinear);
  EXPECT_EQ(one_term(1, 2, 1.0, 0).growth(), GrowthClass::kLinear);
  EXPECT_EQ(one_term(1, 2, 1.0, 1).growth(), GrowthClass::kSuperlinear);
  EXPECT_EQ(one_term(1, 2, 1.5, 0).growth(), GrowthClass::kSuperlinear);
  EXPECT_EQ(one_term(1, 2, 2.0, 0).growth(), GrowthClass::kSuperlinear);
  EXPECT_EQ(one_term(1, 2, -0.5, 0).growth(), GrowthClass::kDecreasing);
  EXPECT_EQ(one_term(1, 2, -1.0, 1).growth(), GrowthClass::kDecreasing);
  // A negative coefficient on a growing leading term: the model decreases.
  EXPECT_EQ(one_term(100, -2, 1.0, 0).growth(), GrowthClass::kDecreasing);
  // A term whose coefficient is exactly 0 does not count.
  EXPECT_EQ(one_term(1, 0.0, 2.0, 0).growth(), GrowthClass::kConstant);
}

TEST(ModelGrowth, LeadingTermIsFastestGrowing) {
  Model m;
  m.constant = 1;
  m.terms.push_back({5.0, {0.0, 2}});   // log^2
  m.terms.push_back({0.1, {0.5, 0}});   // t^(1/2)
  m.terms.push_back({0.2, {0.5, 1}});   // same exponent with a log factor: leads
  m.terms.push_back({3.0, {0.25, 2}});  // lower exponent, more logs: does not lead
  ASSERT_NE(m.leading_term(), nullptr);
  EXPECT_EQ(m.leading_term()->shape, (TermShape{0.5, 1}));
  EXPECT_DOUBLE_EQ(m.leading_term()->coefficient, 0.2);
  EXPECT_EQ(m.growth(), GrowthClass::kSublinear);
  EXPECT_EQ(Model{}.leading_term(), nullptr);

  // Decreasing term plus a log term: the log term leads.
  Model mixed;
  mixed.terms.push_back({4.0, {-1.0, 0}});
  mixed.terms.push_back({1.0, {0.0, 1}});
  EXPECT_EQ(mixed.growth(), GrowthClass::kLogarithmic);
}

TEST(ModelGrowth, GrowsFasterThanLog) {
  EXPECT_FALSE(Model{}.grows_faster_than_log());
  EXPECT_FALSE(one_term(1, 2, 0.0, 1).grows_faster_than_log());
  EXPECT_FALSE(one_term(1, 2, 0.0, 2).grows_faster_than_log());
  EXPECT_TRUE(one_term(1, 2, 0.25, 0).grows_faster_than_log());
  EXPECT_TRUE(one_term(1, 2, 1.0, 0).grows_faster_than_log());
  EXPECT_TRUE(one_term(1, 2, 2.0, 1).grows_faster_than_log());
  EXPECT_FALSE(one_term(1, 2, -0.5, 0).grows_faster_than_log());
  EXPECT_FALSE(one_term(1, -2, 2.0, 0).grows_faster_than_log());  // shrinking
}

TEST(ModelGrowth, Names) {
  EXPECT_EQ(to_string(GrowthClass::kDecreasing), "decreasing");
  EXPECT_EQ(to_string(GrowthClass::kConstant), "constant");
  EXPECT_EQ(to_string(GrowthClass::kLogarithmic), "logarithmic");
  EXPECT_EQ(to_string(GrowthClass::kSublinear), "sublinear");
  EXPECT_EQ(to_string(GrowthClass::kLinear), "linear");
  EXPECT_EQ(to_string(GrowthClass::kSuperlinear), "superlinear");
}

// --- format_exponent ------------------------------------------------------------------------

TEST(FormatExponent, Fractions) {
  EXPECT_EQ(format_exponent(1.5), "3/2");
  EXPECT_EQ(format_exponent(1.0), "1");
  EXPECT_EQ(format_exponent(2.0), "2");
  EXPECT_EQ(format_exponent(0.0), "0");
  EXPECT_EQ(format_exponent(-0.5), "-1/2");
  EXPECT_EQ(format_exponent(2.0 / 3.0), "2/3");
  EXPECT_EQ(format_exponent(0.25), "1/4");
  EXPECT_EQ(format_exponent(0.75), "3/4");
  EXPECT_EQ(format_exponent(4.0 / 5.0), "4/5");
  EXPECT_EQ(format_exponent(11.0 / 4.0), "11/4");
  EXPECT_EQ(format_exponent(-1.0), "-1");
  EXPECT_EQ(format_exponent(5.0 / 12.0), "5/12");
}

TEST(FormatExponent, DecimalsWhenNotASimpleFraction) {
  EXPECT_EQ(format_exponent(0.37), "0.37");
  EXPECT_EQ(format_exponent(1.23), "1.23");
  EXPECT_EQ(format_exponent(-0.37), "-0.37");
  // Four significant digits (refined exponents).
  EXPECT_EQ(format_exponent(0.3712345), "0.3712");
  EXPECT_EQ(format_exponent(1.0 / 13.0), "0.07692");  // denominator above 12
  EXPECT_EQ(format_exponent(2.0 / 3.0 + 1e-4), "0.6668");
}

// --- to_string ------------------------------------------------------------------------------

TEST(ModelToString, ExtrapNotation) {
  Model m;
  m.constant = 0.12;
  m.terms.push_back({3.4, {1.5, 1}});
  EXPECT_EQ(m.to_string(), "0.12 + 3.4 * t^(3/2) * log2(t)^(1)");
  EXPECT_EQ(m.to_string("p"), "0.12 + 3.4 * p^(3/2) * log2(p)^(1)");
}

TEST(ModelToString, NegativeCoefficientsAndTermKinds) {
  Model m;
  m.constant = -1.5;
  m.terms.push_back({-2.0, {1.0, 0}});
  m.terms.push_back({0.5, {0.0, 2}});
  m.terms.push_back({7.0, {-0.5, 0}});
  EXPECT_EQ(m.to_string(), "-1.5 - 2 * t^(1) + 0.5 * log2(t)^(2) + 7 * t^(-1/2)");
}

TEST(ModelToString, ConstantOnlyAndDigits) {
  Model m;
  m.constant = 4.068;
  EXPECT_EQ(m.to_string(), "4.068");
  m.constant = 1.0 / 3.0;
  EXPECT_EQ(m.to_string("t", 3), "0.333");
  EXPECT_EQ(m.to_string("t", 6), "0.333333");
  Model d;
  d.constant = 1;
  d.terms.push_back({2.0, {0.37, 0}});
  EXPECT_EQ(d.to_string(), "1 + 2 * t^(0.37)");
}

// --- parse_model ----------------------------------------------------------------------------

TEST(ParseModel, ExtrapOutputs) {
  {
    const Model m = parse_model("-0.8897934098062803 + 0.20168243826499177 * x^(2)");
    EXPECT_EQ(m.constant, -0.8897934098062803);
    ASSERT_EQ(m.terms.size(), 1u);
    EXPECT_EQ(m.terms[0].coefficient, 0.20168243826499177);
    EXPECT_EQ(m.terms[0].shape, (TermShape{2.0, 0}));
  }
  {
    const Model m = parse_model("4.767602838276684 + 2.5371734699712243 * t^(0.25) * log2(t)^(1)");
    EXPECT_EQ(m.constant, 4.767602838276684);
    ASSERT_EQ(m.terms.size(), 1u);
    EXPECT_EQ(m.terms[0].coefficient, 2.5371734699712243);
    EXPECT_EQ(m.terms[0].shape, (TermShape{0.25, 1}));
  }
  {
    const Model m = parse_model("1.2 + 3 * log2(p)^(2)");
    EXPECT_EQ(m.constant, 1.2);
    ASSERT_EQ(m.terms.size(), 1u);
    EXPECT_EQ(m.terms[0].coefficient, 3.0);
    EXPECT_EQ(m.terms[0].shape, (TermShape{0.0, 2}));
  }
  {
    const Model m = parse_model("4.068");
    EXPECT_EQ(m.constant, 4.068);
    EXPECT_TRUE(m.terms.empty());
  }
}

TEST(ParseModel, FractionsNegativeTermsAndBareParameter) {
  const Model m = parse_model("0.5 - 2 * t^(3/2) + 1e-3 * t * log2(t) - 4 * t^(-1/2)");
  EXPECT_EQ(m.constant, 0.5);
  ASSERT_EQ(m.terms.size(), 3u);
  EXPECT_EQ(m.terms[0].coefficient, -2.0);
  EXPECT_EQ(m.terms[0].shape, (TermShape{1.5, 0}));
  EXPECT_EQ(m.terms[1].coefficient, 1e-3);
  EXPECT_EQ(m.terms[1].shape, (TermShape{1.0, 1}));
  EXPECT_EQ(m.terms[2].coefficient, -4.0);
  EXPECT_EQ(m.terms[2].shape, (TermShape{-0.5, 0}));
  // t = 4: 0.5 - 16 + 0.008 - 2
  EXPECT_DOUBLE_EQ(m.evaluate(4.0), 0.5 - 16.0 + 0.008 - 2.0);
}

TEST(ParseModel, RoundTripWithToString) {
  Model m;
  m.constant = 0.123456789012345;
  m.terms.push_back({-3.25e-7, {1.5, 1}});
  m.terms.push_back({42.0, {2.0 / 3.0, 0}});
  m.terms.push_back({1e6, {0.0, 2}});
  m.terms.push_back({0.5, {0.37, 0}});
  // Full precision: exact round trip of every coefficient and exponent.
  const Model back = parse_model(m.to_string("t", 17));
  EXPECT_EQ(back.constant, m.constant);
  ASSERT_EQ(back.terms.size(), m.terms.size());
  for (std::size_t k = 0; k < m.terms.size(); ++k) {
    SCOPED_TRACE(k);
    EXPECT_EQ(back.terms[k].coefficient, m.terms[k].coefficient);
    EXPECT_DOUBLE_EQ(back.terms[k].shape.exponent, m.terms[k].shape.exponent);
    EXPECT_EQ(back.terms[k].shape.log_exponent, m.terms[k].shape.log_exponent);
  }
  // Default 6 digits: coefficients to 6 significant digits (relative error <= 5e-6), the text
  // itself is a fixed point.
  const std::string text = m.to_string();
  const Model six = parse_model(text);
  EXPECT_EQ(six.to_string(), text);
  EXPECT_NEAR(six.constant, m.constant, 5e-6 * std::fabs(m.constant));
  ASSERT_EQ(six.terms.size(), m.terms.size());
  for (std::size_t k = 0; k < m.terms.size(); ++k) {
    EXPECT_NEAR(six.terms[k].coefficient, m.terms[k].coefficient,
                5e-6 * std::fabs(m.terms[k].coefficient));
  }
  // Extra-P strings survive parse -> to_string -> parse.
  for (const char* extrap : {"-0.8897934098062803 + 0.20168243826499177 * x^(2)",
                             "4.767602838276684 + 2.5371734699712243 * t^(0.25) * log2(t)^(1)",
                             "1.2 + 3 * log2(p)^(2)", "4.068"}) {
    SCOPED_TRACE(extrap);
    const Model a = parse_model(extrap);
    const Model b = parse_model(a.to_string("t", 17));
    EXPECT_EQ(b.constant, a.constant);
    ASSERT_EQ(b.terms.size(), a.terms.size());
    for (std::size_t k = 0; k < a.terms.size(); ++k) {
      EXPECT_EQ(b.terms[k].coefficient, a.terms[k].coefficient);
      EXPECT_EQ(b.terms[k].shape, a.terms[k].shape);
    }
  }
}

TEST(ParseModel, MalformedThrows) {
  for (const char* bad : {"", "   ", "abc", "1 +", "1 + ", "1 2", "1 + 2 *", "1 + 2 * t^2",
                          "1 + 2 * t^(2", "1 + 2 * t^(3/0)", "1 + 2 * log2(t", "1 * * t", "1 + * t",
                          "1 + 2 * t^()", "1 + 2 * log2(t)^2", "1 ; 2"}) {
    SCOPED_TRACE(bad);
    EXPECT_THROW(parse_model(bad), std::invalid_argument);
  }
}

TEST(ParseModel, ErrorNamesTheText) {
  try {
    parse_model("1 + 2 * t^2");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("1 + 2 * t^2"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ompscale::modeler

#include "common/text.h"

#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <cstdint>

namespace ompscale {
namespace {

TEST(Split, KeepsEmptyPieces) {
  EXPECT_EQ(split("a,,b", ','), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(split("", ','), (std::vector<std::string>{""}));
  EXPECT_EQ(split("a\tb\t", '\t'), (std::vector<std::string>{"a", "b", ""}));
  EXPECT_EQ(split("abc", ','), (std::vector<std::string>{"abc"}));
}

TEST(ParseInteger, WholeDecimalIntegersInRange) {
  EXPECT_EQ(parse_integer("0", 0, 10), 0);
  EXPECT_EQ(parse_integer("-3", -5, 5), -3);
  EXPECT_EQ(parse_integer("9223372036854775807", 0, LLONG_MAX), LLONG_MAX);
  EXPECT_EQ(parse_integer("+7", 0, 10), 7);  // the one number syntax: an optional sign
  for (const char* bad : {"", " 1", "1 ", "+-1", "++1", "1.0", "1e3", "0x10", "abc", "11"})
    EXPECT_EQ(parse_integer(bad, 0, 10), std::nullopt) << bad;
  EXPECT_EQ(parse_integer("9223372036854775808", 0, LLONG_MAX), std::nullopt);  // overflow
  EXPECT_EQ(parse_integer("-1", 0, 10), std::nullopt);
}

TEST(ParseDouble, OneSyntaxWithOverflowAsInfinity) {
  EXPECT_EQ(parse_double("1.5e-3"), 1.5e-3);
  EXPECT_EQ(parse_double("+2"), 2.0);
  EXPECT_EQ(parse_double("-0.25"), -0.25);
  EXPECT_TRUE(std::isinf(*parse_double("1e999")));
  EXPECT_TRUE(std::isnan(*parse_double("nan")));
  for (const char* bad : {"", " 1", "1 ", "+-1", "1,5", "0x1p3x", "abc", "1e"})
    EXPECT_EQ(parse_double(bad), std::nullopt) << bad;
}

TEST(IntegerFault, SaysWhyAnIntegerIsRefused) {
  EXPECT_EQ(integer_fault("5", 1, 10), std::nullopt);
  EXPECT_EQ(integer_fault("+5", 1, 10), std::nullopt);
  for (const char* bad : {"", "x", "1-x", " 5", "5 ", "1.0", "+-1"})
    EXPECT_EQ(integer_fault(bad, 1, 10), IntegerFault::kNotAnInteger) << bad;
  EXPECT_EQ(integer_fault("0", 1, 10), IntegerFault::kTooSmall);
  EXPECT_EQ(integer_fault("11", 1, 10), IntegerFault::kTooLarge);
  EXPECT_EQ(integer_fault("99999999999999999999", 1, 10), IntegerFault::kTooLarge);
  EXPECT_EQ(integer_fault("-99999999999999999999", 1, 10), IntegerFault::kTooSmall);
}

TEST(ParseUnsigned, SixtyFourBitsDecimalOrHexadecimal) {
  EXPECT_EQ(parse_unsigned("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(parse_unsigned("0"), 0u);
  EXPECT_EQ(parse_unsigned("ff", 16), 255u);
  EXPECT_EQ(parse_unsigned("DeadBeef", 16), 0xdeadbeefu);
  for (const char* bad : {"", "18446744073709551616", "-1", "+1", " 1", "1 ", "ff", "1.5"})
    EXPECT_EQ(parse_unsigned(bad), std::nullopt) << bad;
  for (const char* bad : {"", "0x10", "g", "-1", "10000000000000000"})
    EXPECT_EQ(parse_unsigned(bad, 16), std::nullopt) << bad;
}

TEST(ParseFraction, NumberOrQuotientOfTwo) {
  EXPECT_EQ(parse_fraction("3/2"), 1.5);
  EXPECT_EQ(parse_fraction("-0.25"), -0.25);
  EXPECT_EQ(parse_fraction("+1/-4"), -0.25);
  for (const char* bad : {"", "1/0", "1/", "/2", "1/2/3", "inf", "1/nan", " 1/2", "x"})
    EXPECT_EQ(parse_fraction(bad), std::nullopt) << bad;
}

TEST(ParseLeadingDouble, NumberAtTheFrontAndTheRest) {
  const auto budget = parse_leading_double("2.5ms");
  ASSERT_TRUE(budget);
  EXPECT_EQ(budget->value, 2.5);
  EXPECT_EQ(budget->rest, "ms");
  const auto factor = parse_leading_double("+4x");
  ASSERT_TRUE(factor);
  EXPECT_EQ(factor->value, 4.0);
  EXPECT_EQ(factor->rest, "x");
  EXPECT_EQ(parse_leading_double("-1e3/2")->rest, "/2");
  EXPECT_TRUE(std::isinf(parse_leading_double("1e999s")->value));
  EXPECT_EQ(parse_leading_double("7")->rest, "");
  for (const char* bad : {"", "ms", " 1", "+-1", "+", "-"})
    EXPECT_EQ(parse_leading_double(bad), std::nullopt) << bad;
}

TEST(Trim, RemovesSurroundingWhiteSpaceOnly) {
  EXPECT_EQ(trim(" \t a b \r\n"), "a b");
  EXPECT_EQ(trim(""), "");
  EXPECT_EQ(trim(" \v\f "), "");
}

TEST(Wrap, BreaksAtSpacesWithIndents) {
  EXPECT_EQ(wrap("one two three four", 9), "one two\nthree\nfour\n");
  EXPECT_EQ(wrap("one two three", 10, "- ", "  "), "- one two\n  three\n");
  EXPECT_EQ(wrap("a verylongword b", 4), "a\nverylongword\nb\n");  // a long word stays whole
  EXPECT_EQ(wrap("no limit at all", 0), "no limit at all\n");
  EXPECT_EQ(wrap("", 10), "\n");
}

TEST(Wrap, CountsCharactersNotBytes) {
  EXPECT_EQ(wrap("\u00b5s \u00b5s \u00b5s", 5), "\u00b5s \u00b5s\n\u00b5s\n");
  EXPECT_EQ(display_width("\u00b5s"), 2u);
}

TEST(NearestWord, FindsLikelyTyposOnly) {
  const std::vector<std::string> words{"fit", "plot", "predict", "compare"};
  EXPECT_EQ(nearest_word("fti", words), "fit");
  EXPECT_EQ(nearest_word("compre", words), "compare");
  EXPECT_EQ(nearest_word("prdict", words), "predict");
  EXPECT_EQ(nearest_word("xyzzy", words), "");
}

}  // namespace
}  // namespace ompscale

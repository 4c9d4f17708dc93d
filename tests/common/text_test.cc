#include "common/text.h"

#include <gtest/gtest.h>

#include <climits>
#include <cmath>

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

#include "common/text.h"

#include <gtest/gtest.h>

#include <climits>

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
  for (const char* bad : {"", " 1", "1 ", "+1", "1.0", "1e3", "0x10", "abc", "11"})
    EXPECT_EQ(parse_integer(bad, 0, 10), std::nullopt) << bad;
  EXPECT_EQ(parse_integer("9223372036854775808", 0, LLONG_MAX), std::nullopt);  // overflow
  EXPECT_EQ(parse_integer("-1", 0, 10), std::nullopt);
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

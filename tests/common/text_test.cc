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

}  // namespace
}  // namespace ompscale

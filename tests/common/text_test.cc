#include "common/text.h"

#include <gtest/gtest.h>

namespace ompscale {
namespace {

TEST(Split, KeepsEmptyPieces) {
  EXPECT_EQ(split("a,,b", ','), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(split("", ','), (std::vector<std::string>{""}));
  EXPECT_EQ(split("a\tb\t", '\t'), (std::vector<std::string>{"a", "b", ""}));
  EXPECT_EQ(split("abc", ','), (std::vector<std::string>{"abc"}));
}

}  // namespace
}  // namespace ompscale

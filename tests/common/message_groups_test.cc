#include "common/message_groups.h"

#include <gtest/gtest.h>

namespace ompscale {
namespace {

TEST(MessageGroups, SaysEachMessageOnceWithACount) {
  MessageGroups groups("kernel", "kernels");
  groups.add("too few points", "a");
  groups.add("noisy", "b");
  groups.add("too few points", "c");
  groups.add("too few points", "d");
  EXPECT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups.render(0, "  ", 0),
            "  too few points (3 kernels):\n"
            "    a, c and d\n"
            "  b: noisy\n");
  EXPECT_EQ(groups.render(0, "  ", 2),
            "  too few points (3 kernels):\n"
            "    a, c and 1 more\n"
            "  b: noisy\n");
}

TEST(MessageGroups, WrapsAtTheWidth) {
  MessageGroups groups("kernel", "kernels");
  groups.add("a message that is long", "subject");
  EXPECT_EQ(groups.render(20, "  ", 0), "  subject: a message\n      that is long\n");
  EXPECT_TRUE(MessageGroups("x", "xs").empty());
}

}  // namespace
}  // namespace ompscale

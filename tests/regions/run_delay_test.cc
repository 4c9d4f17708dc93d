#include "regions/ompt/run_delay.h"

#include <gtest/gtest.h>

namespace ompscale::regions::ompt {
namespace {

TEST(RunDelay, ReadsTheSecondFieldOfSchedstat) {
  EXPECT_EQ(parse_run_delay("183325618 4842494 387\n"), 4842494u);
  EXPECT_EQ(parse_run_delay("0 0 1"), 0u);
}

TEST(RunDelay, RefusesTextOfAnotherForm) {
  EXPECT_FALSE(parse_run_delay(""));
  EXPECT_FALSE(parse_run_delay("183325618"));
  EXPECT_FALSE(parse_run_delay(" 12 34 5"));
  EXPECT_FALSE(parse_run_delay("12 x4 5"));
  EXPECT_FALSE(parse_run_delay("12 34x 5"));
}

}  // namespace
}  // namespace ompscale::regions::ompt

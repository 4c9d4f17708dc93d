#include "common/utc_time.h"

#include <gtest/gtest.h>

#include <regex>

namespace ompscale {
namespace {

TEST(UtcTimestamp, IsIso8601WithSecondsInUtc) {
  const std::string now = utc_timestamp();
  EXPECT_TRUE(
      std::regex_match(now, std::regex(R"(20\d\d-[01]\d-[0-3]\dT[0-2]\d:[0-5]\d:[0-6]\dZ)")))
      << now;
}

}  // namespace
}  // namespace ompscale

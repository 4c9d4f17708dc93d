#include "microbench/driver/run_id.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

namespace ompscale::microbench {
namespace {

TEST(RunId, TheStartSecondAndRandomBits) {
  const std::string id = new_run_id("2026-11-28T18:13:03Z");
  EXPECT_THAT(id, ::testing::MatchesRegex("r20261128T181303Z-[0-9a-f]{8}"));
  // Ids made in one second by one process are apart, as those of two processes are.
  std::set<std::string> ids;
  for (int i = 0; i < 1000; ++i) ids.insert(new_run_id("2026-11-28T18:13:03Z"));
  EXPECT_EQ(ids.size(), 1000u);
}

}  // namespace
}  // namespace ompscale::microbench

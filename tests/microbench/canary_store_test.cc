#include "microbench/driver/canary_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "tests/support/process.h"

namespace ompscale::microbench {
namespace {

class CanaryStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/canary-store-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(CanaryStoreTest, TypicalStateIsTheMedianOfRecentRunsOnceThreeAreKnown) {
  const CanaryStore store(dir_ + "/sub/canaries.json");  // the directory is created on demand
  EXPECT_EQ(store.typical_round_trip_ns("m"), 0);
  EXPECT_EQ(store.record("m", 480), "");
  EXPECT_EQ(store.record("m", 85), "");
  EXPECT_EQ(store.typical_round_trip_ns("m"), 0);  // two runs define nothing yet
  EXPECT_EQ(store.record("m", 500), "");
  EXPECT_EQ(store.typical_round_trip_ns("m"), 480);  // the rare fast state does not win
  EXPECT_EQ(store.typical_round_trip_ns("other machine"), 0);
}

TEST_F(CanaryStoreTest, KeepsOnlyTheLastRuns) {
  const CanaryStore store(dir_ + "/canaries.json");
  for (int i = 0; i < CanaryStore::kHistory; ++i) store.record("m", 100);
  for (int i = 0; i < CanaryStore::kHistory / 2 + 1; ++i) store.record("m", 400);
  EXPECT_EQ(store.typical_round_trip_ns("m"), 400);
}

TEST_F(CanaryStoreTest, DamagedFileIsIgnoredAndRewritten) {
  const std::string path = dir_ + "/canaries.json";
  test_support::spit(path, "{not json");
  const CanaryStore store(path);
  EXPECT_EQ(store.typical_round_trip_ns("m"), 0);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(store.record("m", 300), "");
  EXPECT_EQ(store.typical_round_trip_ns("m"), 300);
}

TEST_F(CanaryStoreTest, NoneDisablesTheStore) {
  const CanaryStore store("none");
  EXPECT_FALSE(store.enabled());
  EXPECT_EQ(store.record("m", 300), "");
  EXPECT_EQ(store.typical_round_trip_ns("m"), 0);
}

TEST_F(CanaryStoreTest, UnwritableLocationIsAWarningNotAFailure) {
  const CanaryStore store("/proc/ompscale-cannot-write/canaries.json");
  EXPECT_NE(store.record("m", 300), "");
}

}  // namespace
}  // namespace ompscale::microbench

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "regions/run/rapl.h"

namespace ompscale::regions {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

const fs::path kFixture = fs::path(OMPSCALE_TEST_DATA) / "powercap";

// A writable copy of the fixture tree, removed afterwards.
class PowercapCopy : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("ompscan-powercap-" + std::to_string(getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::copy(kFixture, root_, fs::copy_options::recursive);
  }
  void TearDown() override {
    for (const auto& entry : fs::recursive_directory_iterator(root_))
      fs::permissions(entry.path(), fs::perms::owner_all, fs::perm_options::add);
    fs::remove_all(root_);
  }
  void set_counter(const std::string& zone, std::uint64_t value) {
    std::ofstream(root_ / zone / "energy_uj") << value << "\n";
  }
  fs::path root_;
};

TEST(EnergyDelta, CountsAcrossOneWrap) {
  EXPECT_EQ(energy_delta_uj(100, 250, 1000), 150u);
  EXPECT_EQ(energy_delta_uj(900, 50, 1000), 150u);  // 100 to the wrap, 50 after it
  EXPECT_EQ(energy_delta_uj(7, 7, 1000), 0u);
}

TEST(RaplMeter, FindsTheZonesAndSkipsTheBrokenOnesWithReasons) {
  const RaplMeter meter(kFixture.string());
  EXPECT_TRUE(meter.available());
  EXPECT_EQ(meter.reason(), "");
  ASSERT_EQ(meter.skipped().size(), 2u);
  EXPECT_THAT(meter.skipped()[0],
              HasSubstr("intel-rapl:1 (package-1): cannot read energy_uj: No such file"));
  EXPECT_THAT(meter.skipped()[1],
              HasSubstr("intel-rapl:1:0 (core): cannot read max_energy_range_uj"));
}

TEST_F(PowercapCopy, MeasuresEachZoneKeyedByPackageAndSubZone) {
  RaplMeter meter(root_.string());
  meter.start();
  set_counter("intel-rapl:0", 3500000);    // +2.5 J
  set_counter("intel-rapl:0:0", 1400000);  // +1 J
  set_counter("intel-rapl:0:1", 250000);   // nothing
  const EnergyReading reading = meter.stop();
  EXPECT_THAT(reading.joules, ElementsAre(Pair("package-0", 2.5), Pair("package-0/core", 1.0),
                                          Pair("package-0/dram", 0.0)));
  EXPECT_EQ(reading.skipped.size(), 2u);
}

TEST_F(PowercapCopy, AddsBackAWrapSeenBetweenSamples) {
  RaplMeter meter(root_.string());
  meter.start();  // package-0 at 1 J
  set_counter("intel-rapl:0", 262143328850 - 500000);
  meter.sample();  // +262142.33 J so far
  set_counter("intel-rapl:0", 700000);
  const EnergyReading reading = meter.stop();  // wrapped: +0.5 J to the top, +0.7 J after it
  const double expected = (262143328850.0 - 500000.0 - 1000000.0) / 1e6 + 1.2;
  EXPECT_NEAR(reading.joules.at("package-0"), expected, 1e-6);
}

TEST_F(PowercapCopy, ReusedMeterStartsFromZero) {
  RaplMeter meter(root_.string());
  meter.start();
  set_counter("intel-rapl:0", 2000000);
  EXPECT_DOUBLE_EQ(meter.stop().joules.at("package-0"), 1.0);
  meter.start();
  set_counter("intel-rapl:0", 2500000);
  EXPECT_DOUBLE_EQ(meter.stop().joules.at("package-0"), 0.5);
}

TEST_F(PowercapCopy, ZoneThatBecomesUnreadableIsLeftOutOfThatMeasurement) {
  RaplMeter meter(root_.string());
  meter.start();
  std::ofstream(root_ / "intel-rapl:0:0" / "energy_uj") << "garbage\n";
  const EnergyReading reading = meter.stop();
  EXPECT_EQ(reading.joules.count("package-0/core"), 0u);
  EXPECT_EQ(reading.joules.count("package-0"), 1u);
  EXPECT_THAT(reading.skipped.back(),
              HasSubstr("intel-rapl:0:0 (core): cannot read energy_uj: 'garbage' is not a "
                        "counter value"));
}

// Counters are read as unsigned 64-bit integers by common/text.h: a sign or a value past 2^64-1
// is no counter value.
TEST_F(PowercapCopy, CounterValuesAreWholeUnsigned64BitNumbers) {
  const fs::path counter = root_ / "intel-rapl:0:0" / "energy_uj";
  std::string good;
  std::getline(std::ifstream(counter), good);
  for (const char* bad : {"18446744073709551616", "-1", "+5", "12 uj"}) {
    std::ofstream(counter) << good << "\n";
    RaplMeter meter(root_.string());
    meter.start();
    std::ofstream(counter) << bad << "\n";
    const EnergyReading reading = meter.stop();
    EXPECT_EQ(reading.joules.count("package-0/core"), 0u) << bad;
    EXPECT_THAT(reading.skipped.back(), HasSubstr(std::string("cannot read energy_uj: '") + bad +
                                                  "' is not a counter value"));
  }
}

TEST_F(PowercapCopy, UnreadableZoneIsSkippedWithTheReason) {
  // A directory where the counter should be: unreadable for root as well.
  fs::remove(root_ / "intel-rapl:0:1" / "energy_uj");
  fs::create_directory(root_ / "intel-rapl:0:1" / "energy_uj");
  RaplMeter meter(root_.string());
  EXPECT_TRUE(meter.available());
  EXPECT_THAT(meter.skipped(),
              ::testing::Contains("intel-rapl:0:1 (dram): cannot read energy_uj: Is a directory"));
  meter.start();
  EXPECT_EQ(meter.stop().joules.count("package-0/dram"), 0u);
}

TEST_F(PowercapCopy, UnreadableCountersMakeEnergyUnavailableWithTheReason) {
  if (geteuid() == 0) GTEST_SKIP() << "root reads files whatever their permissions";
  for (const char* zone : {"intel-rapl:0", "intel-rapl:0:0", "intel-rapl:0:1", "intel-rapl:1:0"})
    fs::permissions(root_ / zone / "energy_uj", fs::perms::none);
  const RaplMeter meter(root_.string());
  EXPECT_FALSE(meter.available());
  EXPECT_THAT(meter.reason(), HasSubstr("intel-rapl:0 (package-0): cannot read energy_uj: "
                                        "Permission denied (RAPL counters are readable by root"));
}

TEST_F(PowercapCopy, NoUsableZoneMakesEnergyUnavailableWithEveryReason) {
  for (const char* zone : {"intel-rapl:0", "intel-rapl:0:0", "intel-rapl:0:1"})
    fs::remove(root_ / zone / "energy_uj");
  const RaplMeter meter(root_.string());
  EXPECT_FALSE(meter.available());
  EXPECT_THAT(meter.reason(), HasSubstr("intel-rapl:0 (package-0): cannot read energy_uj"));
  EXPECT_THAT(meter.reason(), HasSubstr("; intel-rapl:1:0 (core): cannot read max_energy_range"));
}

TEST(RaplMeter, AbsentTreeOrNoZonesIsUnavailable) {
  const RaplMeter absent("/nonexistent/powercap");
  EXPECT_FALSE(absent.available());
  EXPECT_THAT(absent.reason(), HasSubstr("no /nonexistent/powercap ("));
  const RaplMeter empty(kFixture / "intel-rapl");  // a directory without zones
  EXPECT_FALSE(empty.available());
  EXPECT_THAT(empty.reason(), HasSubstr("intel-rapl:* zones: RAPL is not exposed"));
}

TEST(RaplMeter, RootComesFromTheEnvironment) {
  setenv("OMPSCAN_POWERCAP_ROOT", "/some/fixture", 1);
  EXPECT_EQ(default_powercap_root(), "/some/fixture");
  unsetenv("OMPSCAN_POWERCAP_ROOT");
  EXPECT_EQ(default_powercap_root(), "/sys/class/powercap");
}

}  // namespace
}  // namespace ompscale::regions

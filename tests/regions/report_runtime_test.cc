// Which runtime setting a GCC build's report advises (regions/report/runtime.h, faster_setting),
// on measurements whose answer is known.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "regions/report/runtime.h"

namespace ompscale::regions::report {
namespace {

// A setting's runs at 2 threads: their median, fastest and slowest wall time.
NativeComparison setting(const std::string& variant, double median, double min, double max) {
  NativeComparison c;
  c.threads = 2;
  c.variant = variant;
  c.environment = variant == "libgomp" || variant == "libomp" ? "" : "SET=" + variant;
  c.repetitions = 3;
  c.native_s = median;
  c.min_s = min;
  c.max_s = max;
  return c;
}

std::vector<const NativeComparison*> pointers(const std::vector<NativeComparison>& all) {
  std::vector<const NativeComparison*> out;
  for (const NativeComparison& c : all) out.push_back(&c);
  return out;
}

TEST(RuntimeSettings, AClearGainIsAdvised) {
  const std::vector<NativeComparison> at = {setting("libgomp", 0.300, 0.295, 0.305),
                                            setting("passive", 0.310, 0.305, 0.315),
                                            setting("active", 0.200, 0.198, 0.203)};
  const NativeComparison* best = faster_setting(pointers(at));
  ASSERT_NE(best, nullptr);
  EXPECT_EQ(best->variant, "active");
}

// What a trial of a real scan showed (imbalance_serial built with GCC, 3 runs of each): every
// setting ran faster than the runtime as it is, the fastest with its range apart from it, but by
// less than one run of the noisiest setting varied; followed, it gained nothing. The fastest of
// several settings measured a few times each is that much lucky.
TEST(RuntimeSettings, TheFastestOfSeveralWithinTheirSpreadIsNotAdvised) {
  const std::vector<NativeComparison> at = {
      setting("libgomp", 0.2156, 0.2108, 0.2203), setting("passive", 0.2025, 0.1950, 0.2112),
      setting("active", 0.2111, 0.2040, 0.2188), setting("spincount", 0.1997, 0.1960, 0.2034),
      setting("libomp", 0.2046, 0.2000, 0.2094)};
  EXPECT_EQ(faster_setting(pointers(at)), nullptr);
}

TEST(RuntimeSettings, OverlappingRangesOrASmallGainAreNotAdvised) {
  const std::vector<NativeComparison> overlapping = {setting("libgomp", 0.300, 0.290, 0.310),
                                                     setting("active", 0.280, 0.270, 0.295)};
  EXPECT_EQ(faster_setting(pointers(overlapping)), nullptr);
  const std::vector<NativeComparison> small = {setting("libgomp", 1.000, 0.9995, 1.0005),
                                               setting("active", 0.990, 0.9895, 0.9905)};
  EXPECT_EQ(faster_setting(pointers(small)), nullptr);  // 1%: below the 2% asked
}

TEST(RuntimeSettings, TimeSharedMeasurementsAreNeverAdvisedNorCounted) {
  std::vector<NativeComparison> at = {setting("libgomp", 0.300, 0.295, 0.305),
                                      setting("active", 0.200, 0.198, 0.203),
                                      setting("passive", 0.100, 0.050, 0.250)};
  at[2].time_shared = true;  // fastest, and its spread would hide the gain: left out
  const NativeComparison* best = faster_setting(pointers(at));
  ASSERT_NE(best, nullptr);
  EXPECT_EQ(best->variant, "active");
  at[0].time_shared = true;  // the runtime as it is time-shared: nothing to compare with
  EXPECT_EQ(faster_setting(pointers(at)), nullptr);
}

}  // namespace
}  // namespace ompscale::regions::report

// ProfileLocations (regions/run/profile_locations.h): ompscan run resolves the raw locations the
// tool wrote, here on locations captured in this test binary (built with -g for this file).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "regions/run/profile_locations.h"

namespace ompscale::regions {
namespace {

using nlohmann::json;
using ::testing::EndsWith;

// A raw location (as the tool writes it with OMPSCAN_LOCATIONS=raw) of a call site in this file.
__attribute__((noinline)) json raw_location_here() {
  ompt::CodeLocation captured;
  EXPECT_TRUE(ompt::capture_code_location(__builtin_return_address(0), captured));
  char offset[32];
  std::snprintf(offset, sizeof offset, "0x%llx", static_cast<unsigned long long>(captured.offset));
  return {{"module", captured.module}, {"build_id", captured.build_id}, {"offset", offset}};
}

TEST(ProfileLocations, FillsRegionLockAndLoopLocations) {
  const json here = raw_location_here();
  json profile = {{"regions", json::array({{{"id", 0},
                                            {"location", here},
                                            {"locks", json::array({{{"location", here}}})},
                                            {"loops", json::array({{{"location", here}}})}}})}};
  ProfileLocations locations;
  locations.resolve(profile);
  const json& region = profile["regions"][0];
  for (const json* location :
       {&region["location"], &region["locks"][0]["location"], &region["loops"][0]["location"]}) {
    EXPECT_THAT(location->value("file", ""), EndsWith("run_profile_locations_test.cc"))
        << *location;
    EXPECT_GT(location->value("line", 0), 0);
    EXPECT_THAT(location->value("function", ""), ::testing::HasSubstr("TestBody"));
    EXPECT_EQ((*location)["offset"], here["offset"]);  // the raw address stays
  }
}

TEST(ProfileLocations, LeavesResolvedForeignAndMalformedLocationsAlone) {
  json resolved = raw_location_here();
  resolved["file"] = "/elsewhere/kept.c";
  json other_build = raw_location_here();
  other_build["build_id"] = "00000000";  // the file on disk is not the code that ran
  json bad_offset = raw_location_here();
  bad_offset["offset"] = "0xnothex";
  json profile = {{"regions", json::array({{{"location", resolved}},
                                           {{"location", other_build}},
                                           {{"location", bad_offset}},
                                           {{"location", "not an object"}},
                                           {{"locks", "not an array"}},
                                           42})}};
  const json before = profile;
  ProfileLocations locations;
  locations.resolve(profile);
  EXPECT_EQ(profile, before);

  json not_a_profile = json::array({1, 2});
  locations.resolve(not_a_profile);
  json null_profile;  // a run without a profile
  locations.resolve(null_profile);
  EXPECT_TRUE(null_profile.is_null());
}

// Offsets are hexadecimal with an optional "0x" (common/text.h's parse_unsigned); a sign,
// blanks, a bare prefix or more than 64 bits leave the location as it is.
TEST(ProfileLocations, OffsetsAreHexadecimalWithAnOptionalPrefix) {
  const json here = raw_location_here();
  const std::string digits = here["offset"].get<std::string>().substr(2);
  for (const std::string& good : {digits, "0X" + digits}) {
    json location = here;
    location["offset"] = good;
    json profile = {{"regions", json::array({{{"location", location}}})}};
    ProfileLocations().resolve(profile);
    EXPECT_THAT(profile["regions"][0]["location"].value("file", ""),
                EndsWith("run_profile_locations_test.cc"))
        << good;
  }
  for (const std::string& bad : std::vector<std::string>{
           " 0x" + digits, "-0x" + digits, "0x", "0x" + digits + " ", "0x10000000000000000"}) {
    json location = here;
    location["offset"] = bad;
    json profile = {{"regions", json::array({{{"location", location}}})}};
    ProfileLocations().resolve(profile);
    EXPECT_FALSE(profile["regions"][0]["location"].contains("file")) << bad;
  }
}

TEST(ProfileLocations, ResolvesALocationOnceAcrossProfiles) {
  const json here = raw_location_here();
  ProfileLocations locations;
  json first = {{"regions", json::array({{{"location", here}}})}};
  locations.resolve(first);
  json second = first;
  second["regions"][0]["location"] = here;
  locations.resolve(second);
  EXPECT_EQ(first, second);
  EXPECT_TRUE(second["regions"][0]["location"].contains("file"));
}

}  // namespace
}  // namespace ompscale::regions

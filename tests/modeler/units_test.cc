// Time units and budget specifications.

#include "modeler/core/units.h"

#include <gtest/gtest.h>

#include <string>

#include "common/error.h"

namespace ompscale::modeler {
namespace {

TEST(Units, SecondsPer) {
  EXPECT_EQ(seconds_per("s"), 1.0);
  EXPECT_EQ(seconds_per("ms"), 1e-3);
  EXPECT_EQ(seconds_per("us"), 1e-6);
  EXPECT_EQ(seconds_per("\u00b5s"), 1e-6);
  EXPECT_EQ(seconds_per("ns"), 1e-9);
  EXPECT_EQ(seconds_per("ps"), 1e-12);
}

TEST(Units, UnknownUnitThrowsUsageError) {
  for (const char* bad : {"", "sec", "min", "h", "US", "Ms", "parsecs", "u s"}) {
    SCOPED_TRACE(bad);
    EXPECT_THROW(seconds_per(bad), UsageError);
  }
  try {
    seconds_per("fortnights");
    FAIL() << "no exception";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("fortnights"), std::string::npos) << e.what();
  }
}

TEST(Units, ConvertTime) {
  EXPECT_NEAR(convert_time(10, "us", "ns"), 10000.0, 1e-9);
  EXPECT_NEAR(convert_time(2.5, "ms", "us"), 2500.0, 1e-9);
  EXPECT_NEAR(convert_time(1500, "ns", "us"), 1.5, 1e-12);
  EXPECT_NEAR(convert_time(3, "s", "ms"), 3000.0, 1e-9);
  EXPECT_NEAR(convert_time(1, "ps", "ns"), 1e-3, 1e-15);
  EXPECT_NEAR(convert_time(7, "\u00b5s", "us"), 7.0, 1e-12);
  // Same unit: the value itself, also for units that would not parse.
  EXPECT_EQ(convert_time(0.1, "ns", "ns"), 0.1);
  EXPECT_THROW(convert_time(1, "us", "cycles"), UsageError);
  EXPECT_THROW(convert_time(1, "cycles", "us"), UsageError);
}

TEST(ParseBudget, Absolute) {
  const BudgetSpec a = parse_budget("10us");
  EXPECT_EQ(a.value, 10.0);
  EXPECT_FALSE(a.relative);
  EXPECT_EQ(a.unit, "us");
  const BudgetSpec b = parse_budget("2.5ms");
  EXPECT_EQ(b.value, 2.5);
  EXPECT_FALSE(b.relative);
  EXPECT_EQ(b.unit, "ms");
  const BudgetSpec c = parse_budget("1e3ns");
  EXPECT_EQ(c.value, 1000.0);
  EXPECT_EQ(c.unit, "ns");
}

TEST(ParseBudget, Relative) {
  const BudgetSpec r = parse_budget("4x");
  EXPECT_EQ(r.value, 4.0);
  EXPECT_TRUE(r.relative);
  EXPECT_TRUE(r.unit.empty());
  const BudgetSpec h = parse_budget("1.5x");
  EXPECT_EQ(h.value, 1.5);
  EXPECT_TRUE(h.relative);
}

TEST(ParseBudget, BareNumberIsInTheDataUnit) {
  const BudgetSpec b = parse_budget("0.3");
  EXPECT_EQ(b.value, 0.3);
  EXPECT_FALSE(b.relative);
  EXPECT_TRUE(b.unit.empty());
}

TEST(ParseBudget, Errors) {
  for (const char* bad : {"x", "-1us", "10parsecs", "", "us", "0", "0us", "-4x", "4xx", "4 x",
                          "10 us", "nan", "abc"}) {
    SCOPED_TRACE(bad);
    EXPECT_THROW(parse_budget(bad), UsageError);
  }
  try {
    parse_budget("10parsecs");
    FAIL() << "no exception";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("10parsecs"), std::string::npos) << what;
    EXPECT_NE(what.find("4x"), std::string::npos) << "names the accepted forms: " << what;
  }
}

}  // namespace
}  // namespace ompscale::modeler

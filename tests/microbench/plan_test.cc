#include "microbench/driver/plan.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace ompscale::microbench {
namespace {

TEST(Plan, ExpandsSettingsConstructsAndThreads) {
  RunOptions options;
  options.threads = "1,2";
  options.binds = {"spread", "close"};
  options.constructs = {"barrier", "taskloop"};
  const Plan plan = make_plan(options, /*llvm_available=*/true, 2);
  ASSERT_EQ(plan.settings.size(), 4u);  // {gnu, llvm} x {spread, close}
  EXPECT_EQ(plan.settings[0].runtime, "gnu");
  EXPECT_EQ(plan.settings[3].runtime, "llvm");
  ASSERT_EQ(plan.configs.size(), 4u * 2 * 2);
  // auto method: barrier direct, taskloop (no direct) epcc with the default chunk 16.
  EXPECT_EQ(plan.configs[0].method, Method::kDirect);
  EXPECT_EQ(plan.configs[2].construct->name, "taskloop");
  EXPECT_EQ(plan.configs[2].method, Method::kEpcc);
  EXPECT_EQ(plan.configs[2].param_value, "16");
}

TEST(Plan, BindFalseHasNoPlacesAndAllExpands) {
  RunOptions options;
  options.binds = {"all"};
  options.constructs = {"barrier"};
  options.runtime = "gnu";
  const Plan plan = make_plan(options, false, 2);
  ASSERT_EQ(plan.settings.size(), 4u);
  EXPECT_EQ(plan.settings[3].bind, "false");
  EXPECT_EQ(plan.settings[3].places, "");
}

TEST(Plan, RefusesOversubscriptionUnlessAsked) {
  RunOptions options;
  options.threads = "1,4";
  options.constructs = {"barrier"};
  options.runtime = "gnu";
  EXPECT_THROW(make_plan(options, false, 2), UsageError);
  options.oversubscribe = true;
  const Plan plan = make_plan(options, false, 2);
  ASSERT_EQ(plan.configs.size(), 2u);
  EXPECT_FALSE(plan.configs[0].oversubscribed);
  EXPECT_TRUE(plan.configs[1].oversubscribed);
}

TEST(Plan, RejectsUnknownNamesWithOneLine) {
  const auto fails = [](RunOptions options, const std::string& expected) {
    try {
      make_plan(options, true, 2);
      ADD_FAILURE() << "no error, expected " << expected;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
  };
  RunOptions o;
  o.constructs = {"barier"};
  fails(o, "unknown construct 'barier'");
  o = {};
  o.suites = {"sched", "tasks"};
  fails(o, "unknown suite 'tasks'");
  o = {};
  o.binds = {"spreadd"};
  fails(o, "--bind");
  o = {};
  o.places = {"cpus"};
  fails(o, "--places");
  o = {};
  o.runtime = "intel";
  fails(o, "--runtime");
  o = {};
  o.method = "fast";
  fails(o, "--method");
  o = {};
  o.constructs = {"taskloop"};
  o.method = "direct";
  fails(o, "does not apply to taskloop");
  o = {};
  o.constructs = {"for_static"};
  o.chunks = {"0"};
  fails(o, "--chunk");
}

TEST(Plan, LlvmRequestedButNotBuiltIsAUsageError) {
  RunOptions options;
  options.runtime = "llvm";
  EXPECT_THROW(make_plan(options, false, 2), UsageError);
  options.runtime = "";  // default both: falls back to gnu alone
  const Plan plan = make_plan(options, false, 2);
  for (const Setting& s : plan.settings) EXPECT_EQ(s.runtime, "gnu");
}

TEST(Plan, SuitesSelectTheirConstructs) {
  RunOptions options;
  options.suites = {"task"};
  options.runtime = "gnu";
  options.threads = std::string("1");  // GCC 12 warns falsely (-Wrestrict) on a literal here
  const Plan plan = make_plan(options, false, 2);
  for (const Config& c : plan.configs) EXPECT_EQ(c.construct->suite, Suite::kTask);
  EXPECT_FALSE(plan.configs.empty());
}

}  // namespace
}  // namespace ompscale::microbench

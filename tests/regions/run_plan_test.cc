#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/error.h"
#include "regions/run/plan.h"

namespace ompscale::regions {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

RunOptions options_for(std::vector<std::string> command, std::string threads) {
  RunOptions options;
  options.command = std::move(command);
  options.threads = std::move(threads);
  return options;
}

std::string usage_error(const RunOptions& options, int hardware_threads = 4) {
  try {
    plan_runs(options, hardware_threads);
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no UsageError";
  return "";
}

TEST(RunPlaceholders, ReplacesThreadsAndInputEverywhereInAnArgument) {
  const std::string input = "800";
  EXPECT_EQ(substitute_placeholders("{threads}", 4, &input), "4");
  EXPECT_EQ(substitute_placeholders("--nt={threads}", 4, &input), "--nt=4");
  EXPECT_EQ(substitute_placeholders("data/{input}-{threads}.txt", 2, &input), "data/800-2.txt");
  EXPECT_EQ(substitute_placeholders("{threads}{threads}", 3, nullptr), "33");
  EXPECT_EQ(substitute_placeholders("plain", 3, nullptr), "plain");
  EXPECT_EQ(substitute_placeholders("", 3, nullptr), "");
}

TEST(RunPlaceholders, LeavesOtherBracesAlone) {
  EXPECT_EQ(substitute_placeholders(R"({"n": {threads}})", 8, nullptr), R"({"n": 8})");
  EXPECT_EQ(substitute_placeholders("{thread} {threads", 8, nullptr), "{thread} {threads");
  EXPECT_EQ(substitute_placeholders("{{threads}}", 8, nullptr), "{8}");
  EXPECT_EQ(substitute_placeholders("trailing {", 8, nullptr), "trailing {");
}

TEST(RunPlaceholders, InputWithoutInputsIsAUsageError) {
  try {
    substitute_placeholders("--size={input}", 2, nullptr);
    ADD_FAILURE() << "accepted {input} without an input";
  } catch (const UsageError& e) {
    EXPECT_THAT(e.what(), HasSubstr("'--size={input}' uses {input} but no --inputs were given"));
  }
}

TEST(RunIds, NameThreadsInputIndexAndRepetition) {
  EXPECT_EQ(run_id(4, 1, 0), "t4-i1-r0");
  EXPECT_EQ(run_id(16, 0, 12), "t16-i0-r12");
  EXPECT_EQ(run_id(4, std::nullopt, 2), "t4-r2");
}

TEST(RunPlan, RepetitionMajorThenInputThenThreads) {
  RunOptions options = options_for({"./app", "{input}", "{threads}"}, "1,2");
  options.inputs = {"small", "large"};
  options.reps = 2;
  const std::vector<PlannedRun> runs = plan_runs(options, 4);
  std::vector<std::string> ids;
  for (const PlannedRun& run : runs) ids.push_back(run.id);
  EXPECT_THAT(ids, ElementsAre("t1-i0-r0", "t2-i0-r0", "t1-i1-r0", "t2-i1-r0",  //
                               "t1-i0-r1", "t2-i0-r1", "t1-i1-r1", "t2-i1-r1"));
  EXPECT_THAT(runs[2].command, ElementsAre("./app", "large", "1"));
  EXPECT_EQ(runs[2].input, "large");
  EXPECT_EQ(runs[2].input_index, 1);
  EXPECT_EQ(runs[7].repetition, 1);
  EXPECT_EQ(runs[7].threads, 2);
}

// A GCC build's native runs, with every repetition: its own
// libgomp at every (input, thread count), each runtime setting at the largest thread count of
// each input, right after the repetition's measured runs, the settings' order turning with the
// repetition.
TEST(RunPlan, NativeRunsFollowEachRepetition) {
  RunOptions options = options_for({"./app", "{input}", "{threads}"}, "1,2");
  options.inputs = {"small", "large"};
  options.reps = 2;
  const std::vector<PlannedRun> runs = with_native_runs(plan_runs(options, 4));
  std::vector<std::string> ids;
  for (const PlannedRun& run : runs) ids.push_back(run.id);
  EXPECT_THAT(
      ids,
      ElementsAre("t1-i0-r0", "t2-i0-r0", "t1-i1-r0", "t2-i1-r0",  //
                  "t1-i0-native-r0", "t2-i0-native-r0", "t2-i0-passive-r0", "t2-i0-active-r0",
                  "t2-i0-spincount-r0", "t2-i0-libomp-r0", "t1-i1-native-r0", "t2-i1-native-r0",
                  "t2-i1-passive-r0", "t2-i1-active-r0", "t2-i1-spincount-r0", "t2-i1-libomp-r0",
                  "t1-i0-r1", "t2-i0-r1", "t1-i1-r1", "t2-i1-r1",  //
                  "t1-i0-native-r1", "t2-i0-passive-r1", "t2-i0-active-r1", "t2-i0-spincount-r1",
                  "t2-i0-libomp-r1", "t2-i0-native-r1", "t1-i1-native-r1", "t2-i1-passive-r1",
                  "t2-i1-active-r1", "t2-i1-spincount-r1", "t2-i1-libomp-r1", "t2-i1-native-r1"));
  EXPECT_TRUE(runs[5].native);
  EXPECT_EQ(runs[6].variant, "passive");
  EXPECT_FALSE(runs[3].native);
  EXPECT_EQ(runs[16].repetition, 1);
  EXPECT_THAT(runs[11].command, ElementsAre("./app", "large", "2"));
  options.inputs.clear();
  options.command = {"./app"};
  options.reps = 1;
  options.threads = "1";
  ids.clear();
  for (const PlannedRun& run : with_native_runs(plan_runs(options, 4))) ids.push_back(run.id);
  EXPECT_THAT(ids, ElementsAre("t1-r0", "t1-native-r0", "t1-passive-r0", "t1-active-r0",
                               "t1-spincount-r0", "t1-libomp-r0"));
}

TEST(RunPlan, WithoutInputsOneRunPerThreadCountAndRepetition) {
  RunOptions options = options_for({"./app", "-t", "{threads}"}, "po2");
  options.reps = 2;
  const std::vector<PlannedRun> runs = plan_runs(options, 4);
  ASSERT_EQ(runs.size(), 6u);  // po2 up to 4 hardware threads: 1, 2, 4
  EXPECT_EQ(runs[0].id, "t1-r0");
  EXPECT_EQ(runs[5].id, "t4-r1");
  EXPECT_FALSE(runs[0].input_index.has_value());
  EXPECT_THAT(runs[5].command, ElementsAre("./app", "-t", "4"));
}

TEST(RunPlan, MaxThreadsBoundsClassNames) {
  RunOptions options = options_for({"./app"}, "all");
  options.max_threads = 2;
  EXPECT_EQ(plan_runs(options, 8).size(), 2u);
}

TEST(RunPlan, OversubscriptionNeedsTheFlagAndIsMarked) {
  RunOptions options = options_for({"./app"}, "1,4");
  EXPECT_THAT(usage_error(options, 2),
              HasSubstr("--threads: 4 threads exceed the 2 hardware threads of this machine; pass "
                        "--oversubscribe"));
  options.oversubscribe = true;
  const std::vector<PlannedRun> runs = plan_runs(options, 2);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_FALSE(runs[0].oversubscribed);
  EXPECT_TRUE(runs[1].oversubscribed);
}

TEST(RunPlan, RejectsBadOptionsWithOneLineNamingTheOption) {
  EXPECT_THAT(usage_error(options_for({"./app"}, "1,,2")), HasSubstr("--threads '1,,2'"));
  EXPECT_THAT(usage_error(options_for({"./app"}, "many")), HasSubstr("unknown item 'many'"));
  EXPECT_THAT(usage_error(options_for({}, "1")), HasSubstr("no application given"));

  RunOptions options = options_for({"./app"}, "1");
  options.reps = 0;
  EXPECT_THAT(usage_error(options), HasSubstr("--reps 0"));

  options = options_for({"./app", "{input}"}, "1");
  EXPECT_THAT(usage_error(options), HasSubstr("no --inputs were given"));

  options = options_for({"./app", "{threads}"}, "1");
  options.inputs = {"a", "b"};
  EXPECT_THAT(usage_error(options), HasSubstr("--inputs given but no argument contains {input}"));

  options = options_for({"./app"}, "1");
  options.bind = "spreadd";
  EXPECT_THAT(usage_error(options), HasSubstr("--bind 'spreadd': 'spreadd' is not a binding"));
  options.bind = "spread,close";
  EXPECT_NO_THROW(plan_runs(options, 4));

  options.places = "cpus";
  EXPECT_THAT(usage_error(options), HasSubstr("--places 'cpus'"));
  // The count is read by common/text.h's parser: a whole positive integer, an optional '+'.
  for (const char* bad : {"cores(0)", "cores(x)", "cores(2", "cores()", "cores( 2)", "cores(2.0)",
                          "cores(99999999999)", "cores(-1)", "cores(2)x"}) {
    options.places = bad;
    EXPECT_EQ(usage_error(options), std::string("--places '") + bad +
                                        "': expected NAME or NAME(COUNT) with a positive count")
        << bad;
  }
  for (const char* good : {"cores", "threads(2)", "cores(+4)", "numa_domains", "{0,1},{2,3}"}) {
    options.places = good;
    EXPECT_NO_THROW(plan_runs(options, 4)) << good;
  }
}

}  // namespace
}  // namespace ompscale::regions

#include "regions/run/run_environment.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "common/error.h"

namespace ompscale::regions {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::Pair;

RunSettings settings() {
  RunSettings s;
  s.threads = 4;
  s.tool = "/opt/lib/libompscan.so";
  s.profile = "/tmp/ompscan.x/t4-r0.profile.json";
  return s;
}

TEST(RunEnvironment, SetsTheActuatorsAndLoadsTheTool) {
  const std::vector<std::string> env = run_environment(
      {"HOME=/root", "OMP_NUM_THREADS=64", "OMP_TOOL=disabled", "OMP_PROC_BIND=close"}, settings());
  EXPECT_THAT(env, Contains("HOME=/root"));
  EXPECT_THAT(env, Contains("OMP_NUM_THREADS=4"));
  EXPECT_THAT(env, Not(Contains("OMP_NUM_THREADS=64")));
  EXPECT_THAT(env, Contains("OMP_TOOL=enabled"));
  EXPECT_THAT(env, Not(Contains("OMP_TOOL=disabled")));
  EXPECT_THAT(env, Contains("OMP_TOOL_LIBRARIES=/opt/lib/libompscan.so"));
  EXPECT_THAT(env, Contains("LD_PRELOAD=/opt/lib/libompscan.so"));
  EXPECT_THAT(env, Contains("OMPSCAN_OUTPUT=/tmp/ompscan.x/t4-r0.profile.json"));
  EXPECT_THAT(env, Contains("OMP_PROC_BIND=close"));  // inherited: no --bind
  for (const std::string& entry : env) EXPECT_FALSE(entry.starts_with("LD_LIBRARY_PATH=")) << entry;
  for (const std::string& entry : env) EXPECT_FALSE(entry.starts_with("OMPSCAN_TSC_HZ=")) << entry;
}

TEST(RunEnvironment, KnownTscFrequencyIsHandedToTheTool) {
  RunSettings with_clock = settings();
  with_clock.tsc_hz = 2100000123.5;
  EXPECT_THAT(run_environment({}, with_clock), Contains("OMPSCAN_TSC_HZ=2100000123.500"));
}

TEST(RunEnvironment, RawLocationsOnlyWhenTheCallerResolvesThem) {
  RunSettings s = settings();
  for (const std::string& entry : run_environment({}, s))
    EXPECT_FALSE(entry.starts_with("OMPSCAN_LOCATIONS=")) << entry;
  s.raw_locations = true;
  EXPECT_THAT(run_environment({}, s), Contains("OMPSCAN_LOCATIONS=raw"));
}

TEST(RunEnvironment, BindingPlacesAndShimOverrideOrPrepend) {
  RunSettings s = settings();
  s.bind = "spread";
  s.places = "cores";
  s.gomp_shim = "/tmp/ompscan.x/gomp";
  const std::vector<std::string> env = run_environment(
      {"OMP_PROC_BIND=close", "LD_LIBRARY_PATH=/usr/local/lib", "LD_PRELOAD=/lib/libfoo.so"}, s);
  EXPECT_THAT(env, Contains("OMP_PROC_BIND=spread"));
  EXPECT_THAT(env, Not(Contains("OMP_PROC_BIND=close")));
  EXPECT_THAT(env, Contains("OMP_PLACES=cores"));
  EXPECT_THAT(env, Contains("LD_LIBRARY_PATH=/tmp/ompscan.x/gomp:/usr/local/lib"));
  EXPECT_THAT(env, Contains("LD_PRELOAD=/opt/lib/libompscan.so:/lib/libfoo.so"));
  // Each variable once.
  std::vector<std::string> names;
  for (const std::string& entry : env) names.push_back(entry.substr(0, entry.find('=')));
  std::sort(names.begin(), names.end());
  EXPECT_EQ(std::adjacent_find(names.begin(), names.end()), names.end());
}

// libgomp deals a schedule(runtime) loop dynamic,1 when OMP_SCHEDULE is unset, libomp static: a
// GCC build measured on libomp keeps its own runtime's default, or the user's setting.
TEST(RunEnvironment, GccBuildsKeepLibgompsRuntimeSchedule) {
  RunSettings s = settings();
  s.gomp_shim = "/tmp/ompscan.x/gomp";
  // A script gets the shim for what it starts, which may be clang-built: no schedule.
  for (const std::string& entry : run_environment({}, s))
    EXPECT_FALSE(entry.starts_with("OMP_SCHEDULE=")) << entry;
  s.libgomp_schedule = true;
  EXPECT_THAT(run_environment({}, s), Contains("OMP_SCHEDULE=dynamic,1"));
  const std::vector<std::string> mine = run_environment({"OMP_SCHEDULE=guided,8"}, s);
  EXPECT_THAT(mine, Contains("OMP_SCHEDULE=guided,8"));
  EXPECT_THAT(mine, Not(Contains("OMP_SCHEDULE=dynamic,1")));
  // A native run on libomp is what switching runtimes gives: libomp's own default.
  s.native = true;
  for (const std::string& entry : run_environment({}, s))
    EXPECT_FALSE(entry.starts_with("OMP_SCHEDULE=")) << entry;
  // A clang build needs no shim and gets nothing.
  for (const std::string& entry : run_environment({}, settings()))
    EXPECT_FALSE(entry.starts_with("OMP_SCHEDULE=")) << entry;
}

TEST(RunEnvironment, OpenMPVariablesAreTheRuntimesOnesSorted) {
  EXPECT_THAT(openmp_variables({"PATH=/bin", "OMP_NUM_THREADS=2", "KMP_AFFINITY=compact",
                                "GOMP_SPINCOUNT=0", "LIBOMP_USE_HIDDEN_HELPER_TASK=0",
                                "OMPSCAN_OUTPUT=/tmp/x", "OMP_EMPTY="}),
              ElementsAre(Pair("GOMP_SPINCOUNT", "0"), Pair("KMP_AFFINITY", "compact"),
                          Pair("LIBOMP_USE_HIDDEN_HELPER_TASK", "0"), Pair("OMP_EMPTY", ""),
                          Pair("OMP_NUM_THREADS", "2")));
}

TEST(RunEnvironment, CurrentEnvironmentIsEnviron) {
  setenv("OMPSCAN_TEST_MARKER", "42", 1);
  EXPECT_THAT(current_environment(), Contains("OMPSCAN_TEST_MARKER=42"));
  unsetenv("OMPSCAN_TEST_MARKER");
}

std::string tool_error(const std::string& option) {
  try {
    locate_tool(option);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "found";
}

TEST(LocateTool, OptionThenEnvironmentThenNextToTheBinary) {
  unsetenv("OMPSCAN_TOOL");
  EXPECT_EQ(locate_tool(OMPSCALE_OMPSCAN_TOOL), OMPSCALE_OMPSCAN_TOOL);
  EXPECT_EQ(tool_error("/nonexistent/libompscan.so"),
            "--tool /nonexistent/libompscan.so: no such file");

  setenv("OMPSCAN_TOOL", OMPSCALE_OMPSCAN_TOOL, 1);
  EXPECT_EQ(locate_tool(""), OMPSCALE_OMPSCAN_TOOL);
  setenv("OMPSCAN_TOOL", "/nonexistent/tool.so", 1);
  EXPECT_EQ(tool_error(""), "OMPSCAN_TOOL=/nonexistent/tool.so: no such file");
  unsetenv("OMPSCAN_TOOL");

  // This test binary has no libompscan.so beside it or in ../lib: the error lists both places.
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe");
  const std::string message = tool_error("");
  EXPECT_THAT(message, HasSubstr((self.parent_path() / "libompscan.so").string()));
  EXPECT_THAT(message,
              HasSubstr((self.parent_path().parent_path() / "lib/libompscan.so").string()));
  EXPECT_THAT(message, HasSubstr("pass --tool PATH or set OMPSCAN_TOOL"));
}

}  // namespace
}  // namespace ompscale::regions

#include "common/executable_path.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "tests/support/process.h"

namespace ompscale {
namespace {

namespace fs = std::filesystem;

// Set in the child that ThroughTheLoaderItIsArgvZero starts: the path the child must report.
constexpr char kExpectedVariable[] = "OMPSCALE_TEST_EXPECTED_EXECUTABLE";

TEST(ExecutablePath, KnowsTheLoadersNames) {
  EXPECT_TRUE(is_dynamic_loader_name("ld-linux-x86-64.so.2"));
  EXPECT_TRUE(is_dynamic_loader_name("ld-linux.so.2"));
  EXPECT_TRUE(is_dynamic_loader_name("ld-2.36.so"));
  EXPECT_TRUE(is_dynamic_loader_name("ld64.so.2"));
  EXPECT_FALSE(is_dynamic_loader_name("ompbench"));
  EXPECT_FALSE(is_dynamic_loader_name("ld"));
  EXPECT_FALSE(is_dynamic_loader_name("ld-wrapper"));
}

TEST(ExecutablePath, RunDirectlyItIsProcSelfExe) {
  if (std::getenv(kExpectedVariable) != nullptr) GTEST_SKIP() << "the child's run";
  EXPECT_EQ(executable_path(), fs::read_symlink("/proc/self/exe"));
  EXPECT_EQ(executable_directory(), fs::read_symlink("/proc/self/exe").parent_path());
}

// How the bundle's launcher runs every program: through the loader, with --argv0 naming the
// program the user ran.
TEST(ExecutablePath, ThroughTheLoaderItIsArgvZero) {
  if (const char* expected = std::getenv(kExpectedVariable)) {
    EXPECT_EQ(executable_path(), fs::path(expected));
    EXPECT_EQ(executable_directory(), fs::path(expected).parent_path());
    return;
  }
  const fs::path loader = "/lib64/ld-linux-x86-64.so.2";
  if (!fs::exists(loader)) GTEST_SKIP() << "no " << loader;
  const std::string pretended = "/opt/somewhere/bin/some-program";
  setenv(kExpectedVariable, pretended.c_str(), 1);
  const auto outcome = test_support::run_program(
      {loader.string(), "--argv0", pretended, fs::read_symlink("/proc/self/exe").string(),
       "--gtest_filter=ExecutablePath.ThroughTheLoaderItIsArgvZero"},
      fs::temp_directory_path());
  unsetenv(kExpectedVariable);
  EXPECT_EQ(outcome.status, 0) << outcome.out << outcome.err;
  EXPECT_NE(outcome.out.find("[  PASSED  ] 1 test"), std::string::npos) << outcome.out;
}

}  // namespace
}  // namespace ompscale

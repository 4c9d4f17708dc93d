// ELF reading, the GOMP ABI decision and version check, and running a GCC-built binary on libomp
// through the shim, on binaries compiled here with gcc (and clang where present) and on the test
// applications (tests/apps: gcc-built in OMPSCALE_APPS_GNU_DIR, clang-built in
// OMPSCALE_APPS_LLVM_DIR).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "common/error.h"
#include "regions/run/elf_file.h"
#include "regions/run/gomp_abi.h"
#include "regions/run/launcher.h"
#include "regions/run/loaded_library.h"
#include "regions/run/run_environment.h"
#include "tests/support/process.h"

namespace ompscale::regions {
namespace {

namespace fs = std::filesystem;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::Pair;

const std::string kLibomp = default_libomp();

// Reports in its output how many threads its team had and which runtime is mapped.
constexpr char kPortableProgram[] = R"(#include <omp.h>
#include <stdio.h>
#include <string.h>
int main(void) {
  int threads = 0;
#pragma omp parallel
  {
#pragma omp single
    threads = omp_get_num_threads();
  }
  FILE* maps = fopen("/proc/self/maps", "r");
  char line[4096];
  const char* runtime = "none";
  while (maps && fgets(line, sizeof line, maps)) {
    if (strstr(line, "libomp")) { runtime = "libomp"; break; }
    if (strstr(line, "libgomp")) runtime = "libgomp";
  }
  printf("%d %s\n", threads, runtime);
  return 0;
}
)";

// Says how its schedule(runtime) loops deal their iterations.
constexpr char kScheduleProgram[] = R"(#include <omp.h>
#include <stdio.h>
int main(void) {
  omp_sched_t kind;
  int chunk = 0;
  omp_get_schedule(&kind, &chunk);
  printf("%d,%d\n", (int)kind, chunk);
  return 0;
}
)";

// Needs GOMP_5.1 (GOMP_warning, from the error directive) and OMP_5.1 (omp_display_env), which
// libgomp defines and LLVM 14's libomp does not.
constexpr char kOpenMP51Program[] = R"(#include <omp.h>
int main(int argc, char** argv) {
  (void)argv;
  if (argc > 5) {
#pragma omp error at(execution) severity(warning) message("unreachable")
  }
  omp_display_env(0);
  return 0;
}
)";

// Compiles the programs once for the whole suite.
class GompAbiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() / ("ompscan-gomp-" + std::to_string(getpid())));
    fs::create_directories(*dir_);
    test_support::spit(*dir_ / "portable.c", kPortableProgram);
    test_support::spit(*dir_ / "openmp51.c", kOpenMP51Program);
    test_support::spit(*dir_ / "schedule.c", kScheduleProgram);
    gcc_ok_ = compile("gcc", "portable.c", "portable-gcc") &&
              compile("gcc", "openmp51.c", "openmp51-gcc") &&
              compile("gcc", "schedule.c", "schedule-gcc");
    clang_ok_ = compile("clang", "portable.c", "portable-clang");
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
  }
  static bool compile(const std::string& compiler, const std::string& source,
                      const std::string& output) {
    std::string path;
    try {
      path = find_executable(compiler);
    } catch (const UsageError&) {
      return false;
    }
    const test_support::Outcome outcome = test_support::run_program(
        {path, "-fopenmp", "-O1", "-o", (*dir_ / output).string(), (*dir_ / source).string()},
        *dir_);
    EXPECT_EQ(outcome.status, 0) << compiler << " " << source << ": " << outcome.err;
    return outcome.status == 0;
  }
  static std::string binary(const std::string& name) { return (*dir_ / name).string(); }

  static fs::path* dir_;
  static bool gcc_ok_;
  static bool clang_ok_;
};
fs::path* GompAbiTest::dir_ = nullptr;
bool GompAbiTest::gcc_ok_ = false;
bool GompAbiTest::clang_ok_ = false;

TEST(MissingVersions, AreTheNeededOnesNotDefinedInOrderOnce) {
  EXPECT_THAT(missing_versions({"GOMP_4.0", "OMP_1.0"}, {"OMP_1.0", "GOMP_1.0", "GOMP_4.0"}),
              ElementsAre());
  EXPECT_THAT(missing_versions({"OMP_5.1", "GOMP_4.0", "GOMP_5.1", "OMP_5.1"},
                               {"OMP_1.0", "GOMP_4.0", "GOMP_5.0"}),
              ElementsAre("OMP_5.1", "GOMP_5.1"));
  EXPECT_THAT(missing_versions({}, {}), ElementsAre());
}

TEST(ElfFile, ReadsNeededLibrariesAndVersionNeeds) {
  const std::optional<ElfDynamicInfo> info = read_elf_dynamic_info("/bin/true");
  ASSERT_TRUE(info.has_value());
  EXPECT_TRUE(info->has_interpreter);
  EXPECT_THAT(info->needed, Contains("libc.so.6"));
  EXPECT_TRUE(info->needs("libc.so.6"));
  EXPECT_FALSE(info->needs(kLibgompSoname));
  ASSERT_EQ(info->version_needs.count("libc.so.6"), 1u);
  EXPECT_THAT(info->version_needs.at("libc.so.6"), Contains(HasSubstr("GLIBC_2.")));
}

TEST(ElfFile, ReadsTheVersionsLibompDefines) {
  const std::optional<ElfDynamicInfo> info = read_elf_dynamic_info(kLibomp);
  ASSERT_TRUE(info.has_value());
  EXPECT_FALSE(info->has_interpreter);
  const std::vector<std::string>& defined = info->version_definitions;
  for (const char* version : {"OMP_1.0", "OMP_5.0", "GOMP_1.0", "GOMP_4.5", "GOMP_5.0"})
    EXPECT_THAT(defined, Contains(version));
  EXPECT_THAT(defined, Not(Contains("GOMP_5.1")));
  EXPECT_THAT(defined,
              Not(Contains("libomp.so.5")));  // the base entry is the soname, not a version
}

TEST(ElfFile, ScriptsAreNotElfAndMissingFilesAreInputErrors) {
  const fs::path script =
      fs::temp_directory_path() / ("ompscan-script-" + std::to_string(getpid()));
  test_support::spit(script, "#!/bin/sh\nexit 0\n");
  EXPECT_FALSE(read_elf_dynamic_info(script.string()).has_value());
  fs::remove(script);
  EXPECT_THROW(read_elf_dynamic_info("/nonexistent/app"), InputError);
}

TEST_F(GompAbiTest, GccBuiltBinaryRunsOnLibompThroughTheShim) {
  if (!gcc_ok_) GTEST_SKIP() << "no gcc";
  const std::string app = binary("portable-gcc");
  const std::optional<ElfDynamicInfo> info = read_elf_dynamic_info(app);
  ASSERT_TRUE(info.has_value());
  EXPECT_TRUE(info->needs(kLibgompSoname));
  EXPECT_TRUE(check_gomp_abi(app, *info, kLibomp));

  const std::string shim = (*dir_ / "shim").string();
  make_gomp_shim(shim, kLibomp);
  EXPECT_EQ(fs::read_symlink(fs::path(shim) / "libgomp.so.1"), kLibomp);
  const std::vector<std::string> env = {"LD_LIBRARY_PATH=" + shim, "OMP_NUM_THREADS=2"};
  EXPECT_EQ(loaded_library(app, env, {"libomp.so.5", kLibgompSoname}),
            (fs::path(shim) / "libgomp.so.1").string());

  Launch launch;
  launch.executable = app;
  launch.argv = {app};
  launch.env = env;
  launch.log_path = (*dir_ / "portable-gcc.log").string();
  const LaunchResult result = launch_and_wait(launch, {});
  EXPECT_EQ(result.end, LaunchResult::End::kExited);
  EXPECT_EQ(result.exit_status, 0);
  EXPECT_EQ(test_support::slurp(launch.log_path), "2 libomp\n");
}

// A GCC build's schedule(runtime) loops measured on libomp deal their iterations as on its own
// libgomp (dynamic,1 when OMP_SCHEDULE is unset; libomp's own default is static).
TEST_F(GompAbiTest, GccBuildKeepsItsRuntimeScheduleOnLibomp) {
  if (!gcc_ok_) GTEST_SKIP() << "no gcc";
  const std::string app = binary("schedule-gcc");
  const std::string shim = (*dir_ / "schedule-shim").string();
  make_gomp_shim(shim, kLibomp);
  const auto output = [&](const std::vector<std::string>& env, const std::string& name) {
    Launch launch;
    launch.executable = app;
    launch.argv = {app};
    launch.env = env;
    launch.log_path = (*dir_ / name).string();
    const LaunchResult result = launch_and_wait(launch, {});
    EXPECT_EQ(result.exit_status, 0) << name;
    return test_support::slurp(launch.log_path);
  };
  const std::string native = output({}, "schedule-native.log");
  EXPECT_EQ(native, "2,1\n");  // omp_sched_dynamic, chunk 1
  RunSettings settings;
  settings.native = false;
  settings.tool = "/nonexistent/libompscan.so";  // not needed by this program's behaviour
  settings.profile = (*dir_ / "schedule.profile.json").string();
  settings.gomp_shim = shim;
  settings.libgomp_schedule = true;
  std::vector<std::string> env = run_environment({}, settings);
  // Without the tool (this test checks the runtime's behaviour, not the tool's).
  std::erase_if(env, [](const std::string& e) {
    return e.starts_with("LD_PRELOAD=") || e.starts_with("OMP_TOOL");
  });
  EXPECT_EQ(loaded_library(app, env, {"libomp.so.5", kLibgompSoname}),
            (fs::path(shim) / "libgomp.so.1").string());
  EXPECT_EQ(output(env, "schedule-measured.log"), native);
}

TEST_F(GompAbiTest, OpenMP51BinaryIsRefusedNamingTheMissingVersions) {
  if (!gcc_ok_) GTEST_SKIP() << "no gcc";
  const std::string app = binary("openmp51-gcc");
  const std::optional<ElfDynamicInfo> info = read_elf_dynamic_info(app);
  ASSERT_TRUE(info.has_value());
  try {
    check_gomp_abi(app, *info, kLibomp);
    ADD_FAILURE() << "accepted a binary that needs GOMP_5.1";
  } catch (const UsageError& e) {
    const std::string message = e.what();
    EXPECT_THAT(message, HasSubstr(app + " is GCC-built and needs libgomp symbol versions "));
    EXPECT_THAT(message, HasSubstr("GOMP_5.1"));
    EXPECT_THAT(message, HasSubstr("OMP_5.1"));
    EXPECT_THAT(message, Not(HasSubstr("GOMP_4.0")));
    EXPECT_THAT(message, HasSubstr("that " + kLibomp + " does not define"));
    EXPECT_EQ(message.find('\n'), std::string::npos);
  }
}

TEST_F(GompAbiTest, ClangBuiltBinaryNeedsNoShimAndLoadsLibomp) {
  if (!clang_ok_) GTEST_SKIP() << "no clang";
  const std::string app = binary("portable-clang");
  const std::optional<ElfDynamicInfo> info = read_elf_dynamic_info(app);
  ASSERT_TRUE(info.has_value());
  EXPECT_TRUE(info->needs("libomp.so.5"));
  EXPECT_FALSE(check_gomp_abi(app, *info, kLibomp));
  const std::string library = loaded_library(app, {}, {"libomp.so.5", kLibgompSoname});
  EXPECT_THAT(library, HasSubstr("libomp.so.5"));
  EXPECT_TRUE(fs::exists(library)) << library;
}

TEST_F(GompAbiTest, BadLibompIsAUsageError) {
  if (!gcc_ok_) GTEST_SKIP() << "no gcc";
  const std::string app = binary("portable-gcc");
  const ElfDynamicInfo info = *read_elf_dynamic_info(app);
  EXPECT_THROW(check_gomp_abi(app, info, "/nonexistent/libomp.so.5"), UsageError);
  EXPECT_THROW(check_gomp_abi(app, info, "/bin/true"), UsageError);  // no version definitions
}

TEST(TestApps, GccAndClangBuildsAreToldApart) {
  const fs::path gnu = fs::path(OMPSCALE_APPS_GNU_DIR) / "mandelbrot";
  const fs::path llvm = fs::path(OMPSCALE_APPS_LLVM_DIR) / "mandelbrot";
  ASSERT_TRUE(fs::exists(gnu) && fs::exists(llvm)) << "build ompscale_test_apps";
  const ElfDynamicInfo gnu_info = *read_elf_dynamic_info(gnu.string());
  const ElfDynamicInfo llvm_info = *read_elf_dynamic_info(llvm.string());
  EXPECT_TRUE(gnu_info.needs(kLibgompSoname));
  EXPECT_TRUE(check_gomp_abi(gnu.string(), gnu_info, kLibomp));
  EXPECT_FALSE(llvm_info.needs(kLibgompSoname));
  EXPECT_TRUE(llvm_info.needs("libomp.so.5"));
  EXPECT_FALSE(check_gomp_abi(llvm.string(), llvm_info, kLibomp));
}

TEST(LoaderTrace, ParsesResolvedAndMissingLibraries) {
  const std::string trace =
      "\tlinux-vdso.so.1 (0x00007ffd)\n"
      "\tlibomp.so.5 => /usr/lib/llvm-14/lib/libomp.so.5 (0x00007f1d)\n"
      "\tlibfoo.so.1 => not found\n"
      "\t/lib64/ld-linux-x86-64.so.2 (0x00007f1d)\n";
  EXPECT_THAT(parse_loader_trace(trace),
              ElementsAre(Pair("libomp.so.5", "/usr/lib/llvm-14/lib/libomp.so.5"),
                          Pair("libfoo.so.1", "")));
}

TEST(LoaderTrace, NoOpenMPRuntimeGivesNothing) {
  EXPECT_EQ(loaded_library("/bin/true", {}, {"libomp.so.5", kLibgompSoname}), "");
}

}  // namespace
}  // namespace ompscale::regions

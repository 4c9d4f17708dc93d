// libompscan.so end to end: the test applications (tests/apps, gcc-built in OMPSCALE_APPS_GNU_DIR
// and clang-built in OMPSCALE_APPS_LLVM_DIR) run under the tool, and their profiles
// (docs/ompscan-formats.md) are checked. Every app runs on libomp 14: gcc-built ones through its
// GOMP ABI (LD_PRELOAD plus a libgomp.so.1 symlink first on LD_LIBRARY_PATH).
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "regions/run/gomp_abi.h"
#include "tests/apps/app_output.h"
#include "tests/support/process.h"

namespace ompscale::regions {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using ::testing::HasSubstr;
using ::testing::StartsWith;

const std::string kLoadedLibomp = default_libomp();  // the libomp ompscan run loads
constexpr const char* kTool = OMPSCALE_OMPSCAN_TOOL;

enum class Compiler { kGnu, kLlvm };

std::string compiler_name(Compiler compiler) {
  return compiler == Compiler::kGnu ? "gnu" : "llvm";
}

// Sets environment variables for the child processes of one run and restores them afterwards,
// so no other test of the binary inherits them.
class ScopedEnv {
 public:
  ScopedEnv() = default;
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  ~ScopedEnv() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second) {
        setenv(it->first.c_str(), it->second->c_str(), 1);
      } else {
        unsetenv(it->first.c_str());
      }
    }
  }
  void set(const std::string& name, const std::string& value) {
    remember(name);
    setenv(name.c_str(), value.c_str(), 1);
  }
  void unset(const std::string& name) {
    remember(name);
    unsetenv(name.c_str());
  }

 private:
  void remember(const std::string& name) {
    const char* value = std::getenv(name.c_str());
    saved_.emplace_back(name, value != nullptr ? std::optional<std::string>(value) : std::nullopt);
  }
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

struct AppRun {
  int status = -1;
  std::string out;
  std::string err;
  std::optional<Json> profile;
  bool temporary_left = false;  // OMPSCAN_OUTPUT.tmp still exists
};

struct RunOptions {
  int threads = 2;
  bool tool = true;
  std::string tool_library = kTool;
  std::map<std::string, std::string> env;
};

class ToolProfileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    scratch_ = fs::temp_directory_path() /
               ("ompscan-tool-" + std::to_string(getpid()) + "-" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(scratch_);
    fs::create_directories(scratch_ / "gomp");
    fs::create_symlink(kLoadedLibomp, scratch_ / "gomp" / "libgomp.so.1");
  }
  void TearDown() override { fs::remove_all(scratch_); }

  static std::string app_path(Compiler compiler, const std::string& name) {
    return (fs::path(compiler == Compiler::kGnu ? OMPSCALE_APPS_GNU_DIR : OMPSCALE_APPS_LLVM_DIR) /
            name)
        .string();
  }

  AppRun run(Compiler compiler, std::vector<std::string> argv, const RunOptions& options = {}) {
    argv[0] = app_path(compiler, argv[0]);
    EXPECT_TRUE(fs::exists(argv[0])) << argv[0] << " is not built";
    const fs::path output = scratch_ / ("profile" + std::to_string(runs_++) + ".json");
    ScopedEnv env;
    env.set("OMP_NUM_THREADS", std::to_string(options.threads));
    env.unset("OMPSCAN_SAMPLING");
    std::string preload = compiler == Compiler::kGnu ? kLoadedLibomp : std::string();
    if (options.tool) {
      preload += (preload.empty() ? "" : ":") + options.tool_library;
      env.set("OMP_TOOL_LIBRARIES", options.tool_library);
      env.set("OMPSCAN_OUTPUT", output.string());
    } else {
      env.unset("OMP_TOOL_LIBRARIES");
      env.unset("OMPSCAN_OUTPUT");
    }
    if (preload.empty()) {
      env.unset("LD_PRELOAD");
    } else {
      env.set("LD_PRELOAD", preload);
    }
    if (compiler == Compiler::kGnu) {
      const char* old = std::getenv("LD_LIBRARY_PATH");
      env.set("LD_LIBRARY_PATH",
              (scratch_ / "gomp").string() +
                  (old != nullptr && *old != '\0' ? ":" + std::string(old) : ""));
    }
    for (const auto& [name, value] : options.env) {
      if (value.empty()) {
        env.unset(name);  // an empty value in RunOptions::env: the variable is not set
      } else {
        env.set(name, value);
      }
    }

    const test_support::Outcome outcome = test_support::run_program(argv, scratch_);
    AppRun result;
    result.status = outcome.status;
    result.out = outcome.out;
    result.err = outcome.err;
    result.temporary_left = fs::exists(output.string() + ".tmp");
    if (fs::exists(output)) {
      try {
        result.profile = Json::parse(test_support::slurp(output));
      } catch (const std::exception& error) {
        ADD_FAILURE() << "profile of " << argv[0] << " does not parse: " << error.what();
      }
    }
    return result;
  }

  // A run with the tool that must succeed and leave a valid profile.
  Json profile_of(Compiler compiler, const std::vector<std::string>& argv,
                  const RunOptions& options = {}) {
    const AppRun result = run(compiler, argv, options);
    EXPECT_EQ(result.status, 0) << result.err;
    EXPECT_FALSE(result.temporary_left);
    if (!result.profile) {
      ADD_FAILURE() << "no profile from " << argv[0] << " (" << compiler_name(compiler) << ")";
      return Json::object();
    }
    expect_valid_profile(*result.profile);
    return *result.profile;
  }

  // The structure docs/ompscan-formats.md promises, for any profile.
  // Builds `name`.c (C, OpenMP on libomp) in the scratch directory with `compiler`, runs it at 2
  // threads under the tool, checks its standard output and returns the profile it wrote, checked
  // by expect_valid_profile (a failure and an empty object when it cannot build or run).
  Json profile_of_c_program(const std::string& compiler, const std::string& name,
                            const std::string& source, const std::string& expected_out) {
    const fs::path& dir = scratch_;
    test_support::spit(dir / (name + ".c"), source);
    const std::string app = (dir / name).string();
    const test_support::Outcome build =
        test_support::run_program({compiler, "-O2", "-fopenmp", "-o", app, app + ".c"}, dir);
    if (build.status != 0) {
      ADD_FAILURE() << "building " << name << ".c failed: " << build.err;
      return Json::object();
    }
    const fs::path output = dir / (name + ".json");
    ScopedEnv env;
    env.set("OMP_NUM_THREADS", "2");
    env.set("OMP_TOOL_LIBRARIES", kTool);
    env.unset("LD_PRELOAD");
    env.set("OMPSCAN_OUTPUT", output.string());
    const test_support::Outcome outcome = test_support::run_program({app}, dir);
    if (outcome.status != 0) {
      ADD_FAILURE() << name << " exited with " << outcome.status << ": " << outcome.err;
      return Json::object();
    }
    EXPECT_EQ(outcome.out, expected_out);
    const Json profile = Json::parse(test_support::slurp(output));
    expect_valid_profile(profile);
    return profile;
  }

  static void expect_valid_profile(const Json& p) {
    ASSERT_TRUE(p.is_object());
    EXPECT_EQ(p.value("format", ""), "ompscan-profile-1");
    EXPECT_THAT(p.value("runtime_version", ""), StartsWith("LLVM OMP"));
    EXPECT_THAT(p.value("tool_version", ""), HasSubstr("git"));
    EXPECT_GT(p["clock"].value("ticks_per_second", 0.0), 0.0);
    EXPECT_GT(p.value("process_ns", 0ull), 0u);
    EXPECT_GE(p.value("max_threads", 0u), 1u);
    ASSERT_TRUE(p["sampling"].is_object());
    for (const char* field : {"dropped_events", "buffer_full_events", "always_first"}) {
      EXPECT_TRUE(p["sampling"][field].is_number_unsigned()) << field;
    }
    ASSERT_TRUE(p["regions"].is_array());
    std::set<unsigned> ids;
    for (const Json& r : p["regions"]) {
      const unsigned id = r["id"];
      EXPECT_TRUE(ids.insert(id).second) << "duplicate id " << id;
      const std::string kind = r["kind"];
      EXPECT_TRUE(kind == "parallel" || kind == "manual" || kind == "serial") << kind;
      const std::uint64_t executions = r["executions"], measured = r["executions_measured"];
      EXPECT_GE(executions, measured) << "region " << id;
      EXPECT_TRUE(r["wall_ns"].is_number_unsigned());
      EXPECT_TRUE(r["threads"].is_array());
      EXPECT_TRUE(r["parent"].is_null() || r["parent"].is_number_unsigned());
      EXPECT_TRUE(r["nesting_level"].is_number_unsigned());
      if (kind == "serial") {
        EXPECT_THAT(r["name"].get<std::string>(), StartsWith("serial before "));
        continue;
      }
      if (kind == "manual") {
        EXPECT_FALSE(r["name"].get<std::string>().empty());
        EXPECT_EQ(r["manual"]["begins"], executions);
        continue;
      }
      EXPECT_THAT(r["codeptr"].get<std::string>(), StartsWith("0x"));
      if (r.contains("location")) {
        EXPECT_FALSE(r["location"]["module"].get<std::string>().empty());
        EXPECT_THAT(r["location"]["offset"].get<std::string>(), StartsWith("0x"));
      }
      if (measured > 0) {
        EXPECT_LE(r["team_size"]["min"], r["team_size"]["max"]);
        EXPECT_LE(r["team_size"]["max"].get<unsigned>(), p["max_threads"].get<unsigned>());
      }
      const std::uint64_t wall = r["wall_ns"];
      for (const Json& t : r["threads"]) {
        EXPECT_LT(t["thread"].get<unsigned>(), p["max_threads"].get<unsigned>());
        // A thread's part of an execution lies within the master's begin -> end.
        EXPECT_LE(t["work_ns"].get<std::uint64_t>(), wall + 1'000'000) << "region " << id;
        EXPECT_LE(t["lock_timed"].get<std::uint64_t>(),
                  t["lock_acquisitions"].get<std::uint64_t>());
      }
      for (const Json& lock : r["locks"]) {
        const std::uint64_t timed = lock["timed"];
        EXPECT_GE(lock["acquisitions"].get<std::uint64_t>(), timed);
        if (timed > 0) {
          // The fastest acquisition is at most the mean one.
          EXPECT_LE(lock["fastest_ns"].get<double>(),
                    lock["wait_ns"].get<double>() / static_cast<double>(timed) + 1);
        }
      }
    }
  }

  static std::vector<Json> regions_of_kind(const Json& profile, const std::string& kind) {
    std::vector<Json> found;
    for (const Json& r : profile["regions"]) {
      if (r["kind"] == kind) found.push_back(r);
    }
    return found;
  }

  // The locks application's four code locations (two regions, one lock call site each) have
  // module and offset only: no file, line or function.
  static void expect_raw_lock_locations(const Json& p) {
    std::size_t locations = 0;
    for (const Json& r : regions_of_kind(p, "parallel")) {
      ASSERT_TRUE(r.contains("location"));
      std::vector<Json> all = {r["location"]};
      for (const Json& lock : r["locks"]) all.push_back(lock["location"]);
      for (const Json& location : all) {
        ++locations;
        EXPECT_THAT(location["module"].get<std::string>(), HasSubstr("locks"));
        EXPECT_THAT(location["offset"].get<std::string>(), StartsWith("0x"));
        EXPECT_FALSE(location.contains("file")) << location;
        EXPECT_FALSE(location.contains("line")) << location;
        EXPECT_FALSE(location.contains("function")) << location;
      }
    }
    EXPECT_EQ(locations, 4u);
  }

  static const Json* region_named(const Json& profile, const std::string& name) {
    for (const Json& r : profile["regions"]) {
      if (r["name"] == name) return &r;
    }
    return nullptr;
  }

  static std::uint64_t sum(const Json& threads, const char* field) {
    std::uint64_t total = 0;
    for (const Json& t : threads) total += t.value(field, 0ull);
    return total;
  }

  fs::path scratch_;
  int runs_ = 0;
};

class ToolProfileEachBuild : public ToolProfileTest,
                             public ::testing::WithParamInterface<std::tuple<Compiler, int>> {
 protected:
  Compiler compiler() const { return std::get<0>(GetParam()); }
  int threads() const { return std::get<1>(GetParam()); }
  RunOptions options() const {
    RunOptions o;
    o.threads = threads();
    return o;
  }
};

TEST_P(ToolProfileEachBuild, MandelbrotRegionAndItsSerialParts) {
  const Json p = profile_of(compiler(), {"mandelbrot", "300", "static"}, options());
  const std::vector<Json> parallel = regions_of_kind(p, "parallel");
  ASSERT_EQ(parallel.size(), 1u);
  const Json& r = parallel[0];
  EXPECT_EQ(r["executions"], 1);
  EXPECT_EQ(r["executions_measured"], 1);
  EXPECT_EQ(r["team_size"]["max"], threads());
  EXPECT_EQ(p["max_threads"], threads());
  EXPECT_GT(r["wall_ns"].get<std::uint64_t>(), 1'000'000u);  // rows of 300 points, 500 steps
  EXPECT_LT(r["wall_ns"].get<std::uint64_t>(), p["process_ns"].get<std::uint64_t>());
  ASSERT_EQ(r["threads"].size(), static_cast<std::size_t>(threads()));
  for (const Json& t : r["threads"]) {
    EXPECT_EQ(t["executions"], 1);
    EXPECT_EQ(t["barriers"], threads() > 1 ? 1 : 0);  // the end barrier (a team of one has none)
  }
  EXPECT_EQ(r["parent"], nullptr);
  EXPECT_EQ(r["nesting_level"], 0);
  // The source location resolves to the application's own file (built with -g).
  ASSERT_TRUE(r.contains("location"));
  EXPECT_THAT(r["location"].value("file", ""), HasSubstr("mandelbrot.cc"));
  // schedule(runtime): gcc calls GOMP_loop_runtime_start, clang __kmpc_dispatch_init with
  // kmp_sch_runtime, which the tool reads from the call.
  ASSERT_EQ(r["loops"].size(), 1u);
  EXPECT_EQ(r["loops"][0]["schedule"], "runtime");
  EXPECT_EQ(r["loops"][0]["iterations"], 300);

  // Serial time before the region and after it, up to finalize.
  const std::vector<Json> serial = regions_of_kind(p, "serial");
  ASSERT_EQ(serial.size(), 2u);
  EXPECT_EQ(serial[0]["name"], "serial before " + std::to_string(r["id"].get<unsigned>()));
  EXPECT_EQ(serial[0]["serial"]["before"], r["id"]);
  EXPECT_EQ(serial[1]["name"], "serial before end");
  for (const Json& s : serial) EXPECT_EQ(s["executions_measured"], 1);
  const std::uint64_t accounted = r["wall_ns"].get<std::uint64_t>() +
                                  serial[0]["wall_ns"].get<std::uint64_t>() +
                                  serial[1]["wall_ns"].get<std::uint64_t>();
  EXPECT_LE(accounted, p["process_ns"].get<std::uint64_t>() + 3);  // each rounded to 1 ns
  EXPECT_GT(accounted, p["process_ns"].get<std::uint64_t>() * 9 / 10);
}

TEST_P(ToolProfileEachBuild, LocksAreAllCountedAndASampleTimed) {
  const Json p = profile_of(compiler(), {"locks", "60000"}, options());
  const std::vector<Json> parallel = regions_of_kind(p, "parallel");
  ASSERT_EQ(parallel.size(), 2u);  // own locks, then one shared lock
  for (const Json& r : parallel) {
    ASSERT_EQ(r["locks"].size(), 1u);
    const Json& lock = r["locks"][0];
    EXPECT_EQ(lock["kind"], "lock");
    EXPECT_EQ(lock["acquisitions"], 60000);  // one per iteration, every one counted
    EXPECT_EQ(sum(r["threads"], "lock_acquisitions"), 60000u);
    EXPECT_GT(lock["timed"].get<std::uint64_t>(), 0u);
    EXPECT_LT(lock["timed"].get<std::uint64_t>(), 60000u);  // adaptive: a sample
    EXPECT_GT(lock["fastest_ns"].get<std::uint64_t>(), 0u);
    EXPECT_GE(lock["wait_estimate_ns"].get<std::uint64_t>(), lock["wait_ns"].get<std::uint64_t>());
    EXPECT_THAT(lock["location"].value("file", ""), HasSubstr("locks.cc"));
  }
  // Resolved in the process, through libompscan_symbolize.so next to the tool.
  EXPECT_FALSE(p.contains("locations_unresolved")) << p["locations_unresolved"];
}

TEST_P(ToolProfileEachBuild, NestedRegionHasItsParentAndLevel) {
  const Json p = profile_of(compiler(), {"nested", "200000"}, options());
  const std::vector<Json> parallel = regions_of_kind(p, "parallel");
  ASSERT_EQ(parallel.size(), 2u);
  const Json& outer = parallel[0];
  const Json& inner = parallel[1];
  EXPECT_EQ(outer["nesting_level"], 0);
  EXPECT_EQ(outer["parent"], nullptr);
  EXPECT_EQ(outer["team_size"]["max"], 2);  // num_threads(2)
  EXPECT_EQ(inner["nesting_level"], 1);
  EXPECT_EQ(inner["parent"], outer["id"]);
  EXPECT_EQ(inner["executions"], 2);  // one per outer thread
  EXPECT_EQ(inner["executions_measured"], 2);
  EXPECT_EQ(inner["team_size"]["max"], threads());
  // Only outermost regions have serial time before them.
  for (const Json& s : regions_of_kind(p, "serial")) EXPECT_NE(s["serial"]["before"], inner["id"]);
}

TEST_P(ToolProfileEachBuild, EveryTaskTheApplicationCreatesIsCountedAndExecuted) {
  for (const char* cutoff : {"16", "19"}) {
    const AppRun result = run(compiler(), {"tasks", "24", cutoff}, options());
    ASSERT_EQ(result.status, 0) << result.err;
    ASSERT_TRUE(result.profile) << result.err;
    const std::uint64_t created_by_app = apps::printed_task_count(result.out);
    ASSERT_GT(created_by_app, 0u) << result.out;
    const std::vector<Json> parallel = regions_of_kind(*result.profile, "parallel");
    ASSERT_EQ(parallel.size(), 1u);
    const Json& tasks = parallel[0]["tasks"];
    EXPECT_EQ(tasks["created"].get<std::uint64_t>(), created_by_app) << "cutoff " << cutoff;
    EXPECT_EQ(tasks["created"], tasks["executed"]);
    EXPECT_GT(sum(parallel[0]["threads"], "task_ns"), 0u);
  }
}

TEST_P(ToolProfileEachBuild, ManualRegionsAreNamedAndNested) {
  const Json p = profile_of(compiler(), {"manual_regions", "100000"}, options());
  const Json* setup = region_named(p, "setup");
  const Json* solve = region_named(p, "solve");
  const Json* step = region_named(p, "step");
  const Json* per_thread = region_named(p, "per_thread");
  ASSERT_TRUE(setup && solve && step && per_thread);
  for (const Json* r : {setup, solve, step, per_thread}) {
    EXPECT_EQ((*r)["kind"], "manual");
    EXPECT_EQ((*r)["manual"]["ends"], (*r)["manual"]["begins"]);
    EXPECT_EQ((*r)["executions_measured"], (*r)["executions"]);
    EXPECT_GT((*r)["wall_ns"].get<std::uint64_t>(), 0u);
  }
  EXPECT_EQ((*setup)["parent"], nullptr);
  EXPECT_EQ((*solve)["nesting_level"], 0);
  EXPECT_EQ((*step)["executions"], 4);
  EXPECT_EQ((*step)["parent"], (*solve)["id"]);
  EXPECT_EQ((*step)["nesting_level"], 1);
  EXPECT_LE((*step)["wall_ns"].get<std::uint64_t>(), (*solve)["wall_ns"].get<std::uint64_t>());
  // The steps' parallel loop is nested in "step"; "per_thread" in the last parallel region.
  const std::vector<Json> parallel = regions_of_kind(p, "parallel");
  ASSERT_EQ(parallel.size(), 2u);
  EXPECT_EQ(parallel[0]["parent"], (*step)["id"]);
  EXPECT_EQ(parallel[0]["nesting_level"], 2);
  EXPECT_EQ(parallel[0]["executions"], 4);
  EXPECT_EQ((*per_thread)["parent"], parallel[1]["id"]);
  EXPECT_EQ((*per_thread)["executions"], threads());
  EXPECT_EQ((*per_thread)["threads"].size(), static_cast<std::size_t>(threads()));
}

TEST_P(ToolProfileEachBuild, OutputIsTheSameWithAndWithoutTheTool) {
  for (const std::vector<std::string>& argv :
       std::vector<std::vector<std::string>>{{"mandelbrot", "200", "dynamic"},
                                             {"critical_reduction", "50000"},
                                             {"tasks", "22"},
                                             {"manual_regions", "50000"}}) {
    RunOptions without = options();
    without.tool = false;
    const AppRun plain = run(compiler(), argv, without);
    const AppRun measured = run(compiler(), argv, options());
    EXPECT_EQ(plain.status, 0) << argv[0];
    EXPECT_EQ(measured.status, 0) << argv[0];
    EXPECT_FALSE(plain.out.empty()) << argv[0];
    EXPECT_EQ(measured.out, plain.out) << argv[0];
    EXPECT_FALSE(plain.profile.has_value());
    EXPECT_TRUE(measured.profile.has_value()) << argv[0];
  }
}

INSTANTIATE_TEST_SUITE_P(Builds, ToolProfileEachBuild,
                         ::testing::Combine(::testing::Values(Compiler::kGnu, Compiler::kLlvm),
                                            ::testing::Values(1, 2)),
                         [](const auto& info) {
                           return compiler_name(std::get<0>(info.param)) + "_" +
                                  std::to_string(std::get<1>(info.param)) + "threads";
                         });

class ToolProfileEachCompiler : public ToolProfileTest,
                                public ::testing::WithParamInterface<Compiler> {};

// Timing effects need the two threads to run at once, which a loaded 2-core machine does not
// always grant: they must show in one of three runs.
constexpr int kTimingAttempts = 3;

TEST_P(ToolProfileEachCompiler, StaticMandelbrotShowsImbalanceOnOneThread) {
  std::string seen;
  for (int attempt = 0; attempt < kTimingAttempts; ++attempt) {
    const Json p = profile_of(GetParam(), {"mandelbrot", "300", "static"});
    const std::vector<Json> parallel = regions_of_kind(p, "parallel");
    ASSERT_EQ(parallel.size(), 1u);
    const Json& r = parallel[0];
    ASSERT_EQ(r["threads"].size(), 2u);
    const std::uint64_t wall = r["wall_ns"];
    const std::uint64_t first = r["threads"][0]["imbalance_ns"];
    const std::uint64_t second = r["threads"][1]["imbalance_ns"];
    // The rows crossing the set's body come first: thread 0 works, thread 1 waits.
    if (second > wall / 4 && first < second / 4 &&
        r["threads"][0]["work_ns"].get<std::uint64_t>() >
            2 * r["threads"][1]["work_ns"].get<std::uint64_t>()) {
      return;
    }
    seen += r.dump() + "\n";
  }
  ADD_FAILURE() << "no run showed thread 1 waiting for thread 0:\n" << seen;
}

// The schedule a schedule(runtime) loop ran with (its "omp_schedule"), from the runtime, not
// from OMP_SCHEDULE: mandelbrot's "static" and "dynamic" modes set it with omp_set_schedule over
// an OMP_SCHEDULE that says otherwise, and "runtime" keeps OMP_SCHEDULE's. Before, the profile
// copied OMP_SCHEDULE whatever the program set, and priced its loops as the wrong schedule.
TEST_P(ToolProfileEachCompiler, RuntimeLoopsNameTheScheduleTheyRanWith) {
  const auto schedule_of = [&](const std::string& mode, const std::string& omp_schedule) {
    RunOptions options;
    options.env["OMP_SCHEDULE"] = omp_schedule;
    const Json p = profile_of(GetParam(), {"mandelbrot", "100", mode}, options);
    const std::vector<Json> parallel = regions_of_kind(p, "parallel");
    EXPECT_EQ(parallel.size(), 1u);
    if (parallel.empty() || parallel[0]["loops"].empty()) return std::string("no loop");
    const Json& loop = parallel[0]["loops"][0];
    EXPECT_EQ(loop["schedule"], "runtime") << loop.dump();
    return loop.value("omp_schedule", std::string("none")) + " from " +
           loop.value("omp_schedule_source", std::string("nowhere"));
  };
  // The program's omp_set_schedule, not the environment, chose the first two.
  EXPECT_EQ(schedule_of("static", "guided,7"), "static from program");
  EXPECT_EQ(schedule_of("dynamic", "guided,7"), "dynamic,1 from program");
  EXPECT_EQ(schedule_of("runtime", "guided,7"), "guided,7 from OMP_SCHEDULE");
  EXPECT_EQ(schedule_of("runtime", "NONMONOTONIC:GUIDED,7"), "guided,7 from OMP_SCHEDULE");
  // The same kind with another chunk is the program's too.
  EXPECT_EQ(schedule_of("dynamic", "dynamic,4"), "dynamic,1 from program");
  // Without OMP_SCHEDULE the program or the runtime's default chose it.
  EXPECT_EQ(schedule_of("static", ""), "static from program or runtime default");
}

// The "minor_faults=" figure an application printed on stderr, or -1.
long minor_faults(const std::string& err) {
  const auto at = err.find("minor_faults=");
  return at == std::string::npos ? -1 : std::stol(err.substr(at + 13));
}

// An application that allocates and frees its arrays every step
// (tests/apps/heap_churn.cc, like LULESH) faults as often with the tool as without it, because
// the tool's memory is not on its heap. Before, statistics the tool made while aggregating a full
// buffer sat above the step's arrays and kept glibc from giving them back: 10-20% fewer faults.
TEST_P(ToolProfileEachCompiler, TheApplicationFaultsAsOftenWithTheToolAsWithout) {
  RunOptions without;
  without.tool = false;
  const AppRun plain = run(GetParam(), {"heap_churn"}, without);
  ASSERT_EQ(plain.status, 0) << plain.err;
  RunOptions with;
  with.env["OMPSCAN_SAMPLING"] = "all";  // every execution's records: a buffer fills mid-run
  const AppRun measured = run(GetParam(), {"heap_churn"}, with);
  ASSERT_EQ(measured.status, 0) << measured.err;
  ASSERT_TRUE(measured.profile.has_value());
  // The tool did allocate while the application ran: it aggregated a full buffer.
  EXPECT_GT((*measured.profile)["sampling"]["buffer_full_events"].get<int>(), 0);
  const long faults = minor_faults(plain.err);
  const long with_tool = minor_faults(measured.err);
  ASSERT_GT(faults, 10000) << plain.err;
  EXPECT_NEAR(static_cast<double>(with_tool), static_cast<double>(faults), 0.02 * faults)
      << "minor page faults without the tool " << faults << ", with it " << with_tool;
}

TEST_P(ToolProfileEachCompiler, ContendedLockWaitsFarLongerThanOwnLocks) {
  std::string seen;
  for (int attempt = 0; attempt < kTimingAttempts; ++attempt) {
    const Json p = profile_of(GetParam(), {"locks", "100000"});
    const std::vector<Json> parallel = regions_of_kind(p, "parallel");
    ASSERT_EQ(parallel.size(), 2u);
    const Json& own = parallel[0]["locks"][0];
    const Json& shared = parallel[1]["locks"][0];
    // Both regions record their fastest acquisition, contention-free in both, so comparable.
    ASSERT_GT(own["fastest_ns"].get<double>(), 0);
    ASSERT_GT(shared["fastest_ns"].get<double>(), 0);
    EXPECT_LT(own["fastest_ns"].get<double>(), 10 * shared["fastest_ns"].get<double>() + 100);
    // The same acquisitions wait far longer on the shared lock.
    if (shared["wait_estimate_ns"].get<double>() > 3 * own["wait_estimate_ns"].get<double>() &&
        shared["wait_ns"].get<double>() > 3 * own["wait_ns"].get<double>()) {
      return;
    }
    seen += own.dump() + "\n" + shared.dump() + "\n";
  }
  ADD_FAILURE() << "no run showed contention on the shared lock:\n" << seen;
}

TEST_P(ToolProfileEachCompiler, FrequentRegionIsSampledAndItsSerialGapsToo) {
  // One thread: executions of about 1 us, far below what measuring costs over the 1% budget
  // (sampling.h), so the tool measures one in 16 or 32 after the first 64.
  RunOptions options;
  options.threads = 1;
  const Json p = profile_of(GetParam(), {"many_regions", "20000", "200"}, options);
  const std::vector<Json> parallel = regions_of_kind(p, "parallel");
  ASSERT_EQ(parallel.size(), 1u);
  const Json& r = parallel[0];
  EXPECT_EQ(r["executions"], 20000);
  EXPECT_GT(r["executions_measured"].get<unsigned>(), 64u);
  EXPECT_LT(r["executions_measured"].get<unsigned>(), 10000u);
  // Each measured execution weighs the inverse of its sampling probability: the weights add up
  // to about the number of executions (Horvitz-Thompson).
  EXPECT_NEAR(r["executions_estimated"].get<double>(), 20000, 2000);
  // Its time sums every execution (the sample estimates only how the team's time splits).
  EXPECT_EQ(r["wall_se_ns"], 0);
  EXPECT_GT(r["idle_se_ns"].get<double>(), 0);
  EXPECT_EQ(r["executions_estimated"], 20000);  // calibrated to the executions counted
  EXPECT_EQ(r["threads"][0]["executions"], r["executions_measured"]);
  EXPECT_EQ(p["sampling"]["policy"], "adaptive");
  EXPECT_EQ(p["sampling"]["estimator"], "horvitz-thompson");
  const Json* gap = region_named(p, "serial before " + std::to_string(r["id"].get<unsigned>()));
  ASSERT_NE(gap, nullptr);
  EXPECT_EQ((*gap)["executions"], 20000);
  EXPECT_GT((*gap)["executions_measured"].get<unsigned>(), 0u);
  EXPECT_LE((*gap)["executions_measured"], r["executions_measured"].get<unsigned>() + 1);
}

TEST_P(ToolProfileEachCompiler, SamplingAllMeasuresEveryExecution) {
  RunOptions options;
  options.env["OMPSCAN_SAMPLING"] = "all";
  const Json p = profile_of(GetParam(), {"many_regions", "3000", "200"}, options);
  const std::vector<Json> parallel = regions_of_kind(p, "parallel");
  ASSERT_EQ(parallel.size(), 1u);
  const Json& r = parallel[0];
  EXPECT_EQ(r["executions"], 3000);
  EXPECT_EQ(r["executions_measured"], 3000);
  EXPECT_EQ(p["sampling"]["policy"], "all");
}

TEST_P(ToolProfileEachCompiler, FullBuffersAreAggregatedNotLost) {
  // Timing every acquisition writes 60000 lock records per region, several buffers' worth.
  RunOptions options;
  options.env["OMPSCAN_SAMPLING"] = "all";
  const Json p = profile_of(GetParam(), {"locks", "60000"}, options);
  EXPECT_GT(p["sampling"]["buffer_full_events"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(p["sampling"]["dropped_events"], 0);
  for (const Json& r : regions_of_kind(p, "parallel")) {
    const Json& lock = r["locks"][0];
    EXPECT_EQ(lock["acquisitions"], 60000);
    EXPECT_EQ(lock["timed"], 60000);
    EXPECT_EQ(lock["wait_estimate_ns"], lock["wait_ns"]);
  }
}

TEST_P(ToolProfileEachCompiler, ExitInsideARegionKeepsTheStatusAndAValidProfileOrNone) {
  const AppRun result = run(GetParam(), {"exit_in_region"});
  EXPECT_EQ(result.status, 3);
  EXPECT_THAT(result.out, HasSubstr("exiting with status 3"));
  EXPECT_FALSE(result.temporary_left);
  if (result.profile) {
    expect_valid_profile(*result.profile);
    const std::vector<Json> parallel = regions_of_kind(*result.profile, "parallel");
    ASSERT_EQ(parallel.size(), 2u);
    EXPECT_EQ(parallel[0]["executions_measured"], 1);
    EXPECT_EQ(parallel[1]["executions"], 1);  // still open at exit: counted, not measured
    EXPECT_EQ(parallel[1]["executions_measured"], 0);
  }
}

TEST_P(ToolProfileEachCompiler, ForkedChildLeavesTheParentsProfileAlone) {
  const AppRun result = run(GetParam(), {"fork_in_region"});
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("fork_in_region child: checksum"));
  EXPECT_THAT(result.out, HasSubstr("fork_in_region parent: checksum"));
  EXPECT_FALSE(result.temporary_left);
  ASSERT_TRUE(result.profile.has_value());
  expect_valid_profile(*result.profile);
  // The parent's view: both regions (before and after the fork), each measured once.
  std::uint64_t executions = 0;
  for (const Json& r : regions_of_kind(*result.profile, "parallel")) {
    executions += r["executions"].get<std::uint64_t>();
    EXPECT_EQ(r["executions_measured"], r["executions"]);
  }
  EXPECT_EQ(executions, 2u);
  EXPECT_NE((*result.profile)["pid"], 0);
}

TEST_P(ToolProfileEachCompiler, EightThreadsOnTwoCoresComplete) {
  RunOptions eight;
  eight.threads = 8;
  RunOptions two;
  for (const std::vector<std::string>& argv : std::vector<std::vector<std::string>>{
           {"many_regions", "2000", "1000"}, {"locks", "20000"}, {"tasks", "22"}}) {
    const AppRun reference = run(GetParam(), argv, two);
    const Json p = profile_of(GetParam(), argv, eight);
    EXPECT_EQ(p["max_threads"], 8) << argv[0];
    // The checksums do not depend on the thread count.
    const AppRun again = run(GetParam(), argv, eight);
    EXPECT_EQ(again.out, reference.out) << argv[0];
  }
}

INSTANTIATE_TEST_SUITE_P(Builds, ToolProfileEachCompiler,
                         ::testing::Values(Compiler::kGnu, Compiler::kLlvm),
                         [](const auto& info) { return compiler_name(info.param); });

// A pipe or device as OMPSCAN_OUTPUT (/dev/null, a FIFO) is written into: renaming the temporary
// profile over it would replace it by a regular file (as root, /dev/null itself).
TEST_F(ToolProfileTest, OutputPipeIsWrittenIntoAndStaysAPipe) {
  const fs::path fifo = scratch_ / "profile.pipe";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  // Opened without blocking and drained until the application has exited, so a tool that never
  // opens the pipe fails this test instead of hanging it.
  const int fd = open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  std::atomic<bool> exited{false};
  std::string received;
  std::thread reader([&] {
    char buffer[4096];
    for (bool last = false; !last;) {
      last = exited.load();
      ssize_t n;
      while ((n = read(fd, buffer, sizeof buffer)) > 0) received.append(buffer, n);
      if (!last) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  RunOptions options;
  options.env["OMPSCAN_OUTPUT"] = fifo.string();
  const AppRun result = run(Compiler::kLlvm, {"nested", "100000"}, options);
  exited = true;
  reader.join();
  close(fd);
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_FALSE(fs::exists(fifo.string() + ".tmp"));
  const Json profile = Json::parse(received, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(profile.is_discarded()) << received.substr(0, 200);
  EXPECT_EQ(profile["format"], "ompscan-profile-1");
}

TEST_F(ToolProfileTest, WithoutOutputPathTheApplicationRunsAndNothingIsWritten) {
  RunOptions options;
  options.env["OMPSCAN_OUTPUT"] = "";
  const AppRun result = run(Compiler::kLlvm, {"nested", "100000"}, options);
  EXPECT_EQ(result.status, 0);
  EXPECT_THAT(result.out, HasSubstr("checksum"));
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(scratch_)) files += entry.is_regular_file();
  EXPECT_EQ(files, 0u);
}

TEST_F(ToolProfileTest, RawLocationsLeaveSourceLinesToTheLauncher) {
  RunOptions options;
  options.env["OMPSCAN_LOCATIONS"] = "raw";
  const Json p = profile_of(Compiler::kLlvm, {"locks", "2000"}, options);
  expect_raw_lock_locations(p);
  EXPECT_FALSE(p.contains("locations_unresolved"));
}

TEST_F(ToolProfileTest, WithoutTheSymbolizerLocationsStayRawAndTheProfileSaysWhy) {
  const fs::path alone = scratch_ / "alone" / "libompscan.so";
  fs::create_directories(alone.parent_path());
  fs::copy_file(kTool, alone);
  RunOptions options;
  options.tool_library = alone.string();
  const Json p = profile_of(Compiler::kLlvm, {"locks", "2000"}, options);
  EXPECT_THAT(p.value("locations_unresolved", ""), HasSubstr("libompscan_symbolize.so"));
  expect_raw_lock_locations(p);
  // Asked for raw locations, the tool never looks for the symbolizer.
  options.env["OMPSCAN_LOCATIONS"] = "raw";
  const Json raw = profile_of(Compiler::kLlvm, {"locks", "2000"}, options);
  expect_raw_lock_locations(raw);
  EXPECT_FALSE(raw.contains("locations_unresolved")) << raw["locations_unresolved"];
}

// Every library the tool needs is loaded into every run of the application: libc and libm only
// (the C++ library is linked in, hidden), and it exports the OMPT entry point and the manual
// region API, nothing an application could bind to by mistake.
TEST_F(ToolProfileTest, ToolNeedsOnlyLibcAndExportsOnlyItsEntryPoints) {
  if (access("/usr/bin/readelf", X_OK) != 0 || access("/usr/bin/nm", X_OK) != 0)
    GTEST_SKIP() << "no binutils";
  const test_support::Outcome needed =
      test_support::run_program({"/usr/bin/readelf", "-d", kTool}, scratch_);
  ASSERT_EQ(needed.status, 0) << needed.err;
  std::set<std::string> libraries;
  std::istringstream lines(needed.out);
  for (std::string line; std::getline(lines, line);) {
    const auto open = line.find("(NEEDED)");
    if (open == std::string::npos) continue;
    const auto from = line.find('[', open), to = line.find(']', open);
    libraries.insert(line.substr(from + 1, to - from - 1));
  }
  EXPECT_THAT(libraries, testing::Contains(StartsWith("libc.so")));
  for (const std::string& library : libraries) {
    EXPECT_THAT(library, testing::AnyOf(StartsWith("libc.so"), StartsWith("libm.so"),
                                        StartsWith("ld-linux")));
  }
  const auto exports_of = [this](const std::string& library) {
    const test_support::Outcome symbols =
        test_support::run_program({"/usr/bin/nm", "-D", "--defined-only", library}, scratch_);
    EXPECT_EQ(symbols.status, 0) << symbols.err;
    std::set<std::string> exported;
    std::istringstream rows(symbols.out);
    for (std::string address, type, name; rows >> address >> type >> name;) exported.insert(name);
    return exported;
  };
  EXPECT_EQ(exports_of(kTool),
            (std::set<std::string>{"ompt_start_tool", "ompscan_tool_region_begin",
                                   "ompscan_tool_region_end"}));
  // The symbolizer it may load at exit exports its versioned entry point alone.
  EXPECT_EQ(exports_of((fs::path(kTool).parent_path() / "libompscan_symbolize.so").string()),
            std::set<std::string>{"ompscan_resolve_locations_v1"});
}

// A C compiler that builds OpenMP programs on libomp, or "".
std::string clang_c_compiler() {
  for (const char* candidate : {"/usr/bin/clang", "/usr/bin/clang-14"}) {
    if (access(candidate, X_OK) == 0) return candidate;
  }
  return "";
}

TEST_F(ToolProfileTest, OneLockCallSiteInTwoRegionsCountsForEach) {
  const std::string compiler = clang_c_compiler();
  if (compiler.empty()) GTEST_SKIP() << "no clang to build a C OpenMP program on libomp";
  // add() takes the lock at one code location for both regions, in both cases on every thread
  // (a thread's lock-site counts must follow it from one region to the next).
  const Json p = profile_of_c_program(compiler, "sites", R"(#include <omp.h>
#include <stdio.h>
static omp_lock_t lock;
static long total;
__attribute__((noinline)) static void add(long value) {
  omp_set_lock(&lock);
  total += value;
  omp_unset_lock(&lock);
}
int main(void) {
  volatile int repeats = 3; /* not unrolled: one code location per region */
  omp_init_lock(&lock);
  for (int repeat = 0; repeat < repeats; ++repeat) {
#pragma omp parallel for
    for (long i = 0; i < 1000; ++i) add(i);
#pragma omp parallel for
    for (long i = 0; i < 700; ++i) add(2 * i);
  }
  omp_destroy_lock(&lock);
  printf("total %ld\n", total);
  return 0;
}
)",
                                      "total 2966400\n");
  if (p.empty()) return;
  const std::vector<Json> parallel = regions_of_kind(p, "parallel");
  ASSERT_EQ(parallel.size(), 2u);
  ASSERT_EQ(parallel[0]["locks"].size(), 1u);
  ASSERT_EQ(parallel[1]["locks"].size(), 1u);
  EXPECT_EQ(parallel[0]["locks"][0]["codeptr"], parallel[1]["locks"][0]["codeptr"]);
  EXPECT_EQ(parallel[0]["locks"][0]["acquisitions"], 3 * 1000);
  EXPECT_EQ(parallel[1]["locks"][0]["acquisitions"], 3 * 700);
  EXPECT_EQ(sum(parallel[0]["threads"], "lock_acquisitions"), 3u * 1000);
  EXPECT_EQ(sum(parallel[1]["threads"], "lock_acquisitions"), 3u * 700);
}

TEST_F(ToolProfileTest, NestLocksAreCountedOnceFailedTestLocksNot) {
  const std::string compiler = clang_c_compiler();
  if (compiler.empty()) GTEST_SKIP() << "no clang to build a C OpenMP program on libomp";
  // Thread 0 holds `busy` while thread 1 alternates a failing omp_test_lock(&busy) with its own
  // lock: past the first 256 acquisitions only some are timed, so some timed acquisitions are
  // failed tests, which get no acquired callback.
  const Json p = profile_of_c_program(compiler, "tests", R"(#include <omp.h>
#include <stdio.h>
static omp_lock_t busy, own;
static omp_nest_lock_t nest;
static volatile int done;
int main(void) {
  long failed = 0;
  omp_init_lock(&busy);
  omp_init_lock(&own);
  omp_init_nest_lock(&nest);
#pragma omp parallel num_threads(2)
  {
    if (omp_get_thread_num() == 0) {
      omp_set_lock(&busy);
#pragma omp barrier
      while (!done) {
      }
      omp_unset_lock(&busy);
    } else {
#pragma omp barrier
      for (int i = 0; i < 50; ++i) { /* first acquisition, then one of a lock it owns */
        omp_set_nest_lock(&nest);
        omp_set_nest_lock(&nest);
        omp_unset_nest_lock(&nest);
        omp_unset_nest_lock(&nest);
      }
      for (int i = 0; i < 20000; ++i) {
        if (!omp_test_lock(&busy)) ++failed;
        omp_set_lock(&own);
        omp_unset_lock(&own);
      }
      done = 1;
    }
  }
  printf("failed %ld\n", failed);
  return 0;
}
)",
                                      "failed 20000\n");
  if (p.empty()) return;
  const std::vector<Json> parallel = regions_of_kind(p, "parallel");
  ASSERT_EQ(parallel.size(), 1u);
  // Sites: busy (thread 0, once), the two nest-lock calls (50 each: the first acquisition reports
  // acquired, the second, of a lock the thread owns, a nest_lock begin) and own (thread 1, 20000
  // times). Failed tests acquire nothing: libomp 14 reports their acquire like a lock's but no
  // acquired, so they are neither counted nor timed (a timed one used to leave its stamp to the
  // next acquisition of own, which then recorded a timed acquisition at the test's site; and each
  // was counted).
  ASSERT_EQ(parallel[0]["locks"].size(), 4u) << parallel[0]["locks"];
  std::uint64_t acquisitions = 0;
  std::vector<std::uint64_t> nest_counts;
  for (const Json& lock : parallel[0]["locks"]) {
    EXPECT_GT(lock["timed"].get<std::uint64_t>(), 0u) << lock;
    EXPECT_LE(lock["timed"].get<std::uint64_t>(), lock["acquisitions"].get<std::uint64_t>())
        << lock;
    acquisitions += lock["acquisitions"].get<std::uint64_t>();
    if (lock["kind"] == "nest_lock") nest_counts.push_back(lock["acquisitions"]);
  }
  EXPECT_EQ(acquisitions, 20101u);
  EXPECT_EQ(sum(parallel[0]["threads"], "lock_acquisitions"), 20101u);
  EXPECT_EQ(nest_counts, (std::vector<std::uint64_t>{50, 50}));
}

TEST_F(ToolProfileTest, HeaderCompilesAsCAndWorksWithAndWithoutTheTool) {
  const std::string compiler = clang_c_compiler();
  if (compiler.empty()) GTEST_SKIP() << "no clang to build a C OpenMP program on libomp";
  test_support::spit(scratch_ / "manual.c", R"(#include <ompscan.h>
#include <stdio.h>
int main(void) {
  long sum = 0;
  ompscan_region_begin("c_phase");
#pragma omp parallel for reduction(+ : sum)
  for (long i = 0; i < 1000; ++i) sum += i;
  ompscan_region_end("c_phase");
  printf("sum %ld\n", sum);
  return 0;
}
)");
  const std::string app = (scratch_ / "manual_c").string();
  const test_support::Outcome build = test_support::run_program(
      {compiler, "-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-fopenmp",
       "-I" + std::string(OMPSCALE_SOURCE_DIR) + "/regions/include", "-o", app,
       (scratch_ / "manual.c").string()},
      scratch_);
  ASSERT_EQ(build.status, 0) << build.err;

  ScopedEnv env;
  env.unset("OMP_TOOL_LIBRARIES");
  env.unset("LD_PRELOAD");
  const test_support::Outcome plain = test_support::run_program({app}, scratch_);
  EXPECT_EQ(plain.status, 0);
  EXPECT_EQ(plain.out, "sum 499500\n");

  const fs::path output = scratch_ / "c.json";
  env.set("LD_PRELOAD", kTool);
  env.set("OMPSCAN_OUTPUT", output.string());
  const test_support::Outcome measured = test_support::run_program({app}, scratch_);
  EXPECT_EQ(measured.status, 0);
  EXPECT_EQ(measured.out, plain.out);
  ASSERT_TRUE(fs::exists(output));
  const Json p = Json::parse(test_support::slurp(output));
  expect_valid_profile(p);
  const Json* phase = region_named(p, "c_phase");
  ASSERT_NE(phase, nullptr);
  EXPECT_EQ((*phase)["executions_measured"], 1);
  const std::vector<Json> parallel = regions_of_kind(p, "parallel");
  ASSERT_EQ(parallel.size(), 1u);
  EXPECT_EQ(parallel[0]["parent"], (*phase)["id"]);
}

}  // namespace
}  // namespace ompscale::regions

// End to end: the ompscan binary (OMPSCALE_OMPSCAN_BIN) runs the test applications (tests/apps,
// gcc-built in OMPSCALE_APPS_GNU_DIR, clang-built in OMPSCALE_APPS_LLVM_DIR) and system programs,
// and writes run files.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "regions/run/gomp_abi.h"
#include "tests/support/process.h"

namespace ompscale::regions {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test_support::Outcome;
using test_support::slurp;
using test_support::spit;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

const fs::path kPowercapFixture = fs::path(OMPSCALE_TEST_DATA) / "powercap";

std::string gnu_app(const std::string& name) {
  return (fs::path(OMPSCALE_APPS_GNU_DIR) / name).string();
}
std::string llvm_app(const std::string& name) {
  return (fs::path(OMPSCALE_APPS_LLVM_DIR) / name).string();
}

class RunCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ompscan-run-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    runs_ = dir_ / "runs";
    // Deterministic energy: the fixture's counters do not move, so every zone reads 0 J.
    setenv("OMPSCAN_POWERCAP_ROOT", kPowercapFixture.c_str(), 1);
    unsetenv("OMPSCAN_TOOL");
  }
  void TearDown() override {
    unsetenv("OMPSCAN_POWERCAP_ROOT");
    fs::remove_all(dir_);
  }

  // `ompscan run ARGS`; the machine's costs are measured only where a test asks (--probe).
  Outcome ompscan(std::vector<std::string> args) {
    const auto probe = std::find(args.begin(), args.end(), "--probe");
    if (probe != args.end()) {
      args.erase(probe);
    } else {
      args.insert(args.begin(), "--no-probe");
    }
    args.insert(args.begin(), {OMPSCALE_OMPSCAN_BIN, "run"});
    return test_support::run_program(args, dir_);
  }
  json run_file(const std::string& id) const { return json::parse(slurp(runs_ / (id + ".json"))); }
  std::vector<std::string> run_files() const {
    std::vector<std::string> names;
    if (!fs::exists(runs_)) return names;
    for (const auto& entry : fs::directory_iterator(runs_)) {
      const std::string name = entry.path().filename().string();
      if (entry.path().extension() == ".json" && !name.starts_with("probe-")) {
        names.push_back(name);
      }
    }
    std::sort(names.begin(), names.end());
    return names;
  }
  static void expect_usage_error(const Outcome& outcome, const std::string& expected) {
    EXPECT_EQ(outcome.status, 2) << outcome.err;
    EXPECT_THAT(outcome.err, StartsWith("ompscan: "));
    EXPECT_THAT(outcome.err, HasSubstr(expected));
    EXPECT_EQ(std::count(outcome.err.begin(), outcome.err.end(), '\n'), 1) << outcome.err;
  }

  fs::path dir_;
  fs::path runs_;
};

TEST_F(RunCommandTest, GccBuiltAppRunsOncePerThreadCountOnLibomp) {
  const Outcome outcome = ompscan(
      {"--probe", "--threads", "1,2", "-o", runs_.string(), "--", gnu_app("mandelbrot"), "200"});
  ASSERT_EQ(outcome.status, 0) << outcome.err;
  EXPECT_THAT(outcome.err, HasSubstr("ompscan: 8 runs in " + runs_.string()));
  // Once per thread count on its own libgomp too, without the tool, and at the largest thread
  // count with each runtime setting, with the same repetitions.
  EXPECT_THAT(run_files(), ElementsAre("t1-native-r0.json", "t1-r0.json", "t2-active-r0.json",
                                       "t2-libomp-r0.json", "t2-native-r0.json",
                                       "t2-passive-r0.json", "t2-r0.json", "t2-spincount-r0.json"));
  for (int threads : {1, 2}) {
    const json native = run_file("t" + std::to_string(threads) + "-native-r0");
    EXPECT_EQ(native["native"], true);
    EXPECT_EQ(native["variant"], "libgomp");
    EXPECT_EQ(native["status"], "ok");
    EXPECT_EQ(native["runtime"]["gomp_abi"], false);
    EXPECT_THAT(native["runtime"]["library"].get<std::string>(), HasSubstr("libgomp.so.1"));
    EXPECT_TRUE(native["profile"].is_null());
    EXPECT_EQ(native["environment"]["OMP_NUM_THREADS"], std::to_string(threads));
    EXPECT_FALSE(native["environment"].contains("OMP_TOOL_LIBRARIES"));
    EXPECT_GT(native["wall_ns"].get<std::int64_t>(), 0);
  }
  EXPECT_EQ(run_file("t2-passive-r0")["environment"]["OMP_WAIT_POLICY"], "passive");
  EXPECT_EQ(run_file("t2-active-r0")["environment"]["OMP_WAIT_POLICY"], "active");
  EXPECT_TRUE(run_file("t2-spincount-r0")["environment"].contains("GOMP_SPINCOUNT"));
  const json libomp = run_file("t2-libomp-r0");
  EXPECT_EQ(libomp["native"], true);
  EXPECT_EQ(libomp["runtime"]["library"], default_libomp());
  EXPECT_FALSE(libomp["environment"].contains("OMP_TOOL_LIBRARIES"));
  EXPECT_TRUE(libomp["profile"].is_null());
  // The machine's costs on both runtimes, before the runs.
  for (const char* runtime : {"libomp", "libgomp"}) {
    const json probe = json::parse(slurp(runs_ / (std::string("probe-") + runtime + ".json")));
    EXPECT_EQ(probe["format"], "ompscan-probe-run-1");
    EXPECT_EQ(probe["runtime"], runtime);
    EXPECT_EQ(probe["threads"], 2);
    ASSERT_EQ(probe["runs"].size(), 3u);
    EXPECT_GT(probe["runs"][0]["probe"]["loop"]["dynamic1_ns"].get<double>(), 0.0);
  }
  for (int threads : {1, 2}) {
    const json file = run_file("t" + std::to_string(threads) + "-r0");
    EXPECT_EQ(file["format"], "ompscan-run-1");
    EXPECT_EQ(file["status"], "ok");
    EXPECT_EQ(file["exit_status"], 0);
    EXPECT_EQ(file["threads"], threads);
    EXPECT_EQ(file["command"], json({gnu_app("mandelbrot"), "200"}));
    EXPECT_EQ(file["environment"]["OMP_NUM_THREADS"], std::to_string(threads));
    EXPECT_EQ(file["runtime"]["gomp_abi"], true);
    EXPECT_EQ(file["native"], false);
    EXPECT_EQ(file["runtime"]["library"], default_libomp());
    EXPECT_GT(file["wall_ns"].get<std::int64_t>(), 0);
    EXPECT_EQ(file["energy"]["available"], true);
    EXPECT_EQ(file["energy_joules"]["package-0"], 0.0);
    EXPECT_EQ(file["counters"]["available"].is_boolean(), true);
    if (file["counters"]["available"] == false) {
      EXPECT_FALSE(file["counters"]["reason"].get<std::string>().empty());
    }
    EXPECT_EQ(file["tool"], OMPSCALE_OMPSCAN_TOOL);  // found next to the ompscan binary
    EXPECT_THAT(slurp(runs_ / ("t" + std::to_string(threads) + "-r0.log")),
                HasSubstr("mandelbrot"));
    // The tool was loaded into the application and its profile embedded.
    ASSERT_TRUE(file["profile"].is_object()) << file["profile_error"];
    EXPECT_EQ(file["profile"]["format"], "ompscan-profile-1");
    EXPECT_EQ(file["profile"]["max_threads"], threads);
    EXPECT_EQ(file["profile_error"], "");
  }
}

TEST_F(RunCommandTest, ClangBuiltAppRunsWithoutTheShim) {
  const Outcome outcome =
      ompscan({"--threads", "2", "-o", runs_.string(), "--", llvm_app("mandelbrot"), "200"});
  ASSERT_EQ(outcome.status, 0) << outcome.err;
  const json file = run_file("t2-r0");
  EXPECT_EQ(file["status"], "ok");
  EXPECT_EQ(file["runtime"]["gomp_abi"], false);
  EXPECT_THAT(file["runtime"]["library"].get<std::string>(), HasSubstr("libomp.so.5"));
  EXPECT_EQ(file["profile"]["max_threads"], 2);
  // The tool wrote raw locations (OMPSCAN_LOCATIONS=raw); ompscan run resolved them afterwards.
  std::size_t resolved = 0;
  for (const json& region : file["profile"]["regions"]) {
    if (region["kind"] != "parallel") continue;
    EXPECT_THAT(region["location"].value("file", ""), HasSubstr("mandelbrot.cc"));
    EXPECT_GT(region["location"].value("line", 0), 0);
    EXPECT_THAT(region["location"].value("function", ""), HasSubstr("count_points"));
    ++resolved;
  }
  EXPECT_EQ(resolved, 1u);
}

TEST_F(RunCommandTest, ManualRegionApiFindsThePreloadedTool) {
  const Outcome outcome = ompscan({"--threads", "2", "--no-native-runs", "-o", runs_.string(), "--",
                                   gnu_app("manual_regions"), "1000"});
  ASSERT_EQ(outcome.status, 0) << outcome.err;
  EXPECT_THAT(outcome.err, HasSubstr("ompscan: 1 run in "));
  const json file = run_file("t2-r0");
  ASSERT_TRUE(file["profile"].is_object()) << file["profile_error"];
  std::vector<std::string> manual;
  for (const json& region : file["profile"]["regions"])
    if (region["kind"] == "manual") manual.push_back(region["name"]);
  EXPECT_THAT(manual, ::testing::IsSupersetOf({"setup", "solve", "step", "per_thread"}));
}

TEST_F(RunCommandTest, HelpFitsA100ColumnTerminalAndTyposAreNamed) {
  for (const char* sub : {"run", "report"}) {
    const Outcome help = test_support::run_program({OMPSCALE_OMPSCAN_BIN, sub, "--help"}, dir_);
    ASSERT_EQ(help.status, 0) << help.err;
    std::istringstream lines(help.out);
    for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 100u) << line;
  }
  const Outcome typo = test_support::run_program({OMPSCALE_OMPSCAN_BIN, "rnu"}, dir_);
  EXPECT_EQ(typo.status, 2);
  EXPECT_THAT(typo.err, HasSubstr("unknown command 'rnu'; did you mean run?"));
  // A path that does not exist is not "not a directory".
  const Outcome missing =
      test_support::run_program({OMPSCALE_OMPSCAN_BIN, "report", (dir_ / "nope").string()}, dir_);
  EXPECT_EQ(missing.status, 2);
  EXPECT_THAT(missing.err, HasSubstr("nope: no such directory"));
}

TEST_F(RunCommandTest, FailingRunsAreRecordedAndTheOthersGoOn) {
  const Outcome outcome = ompscan({"--threads", "1,2", "--no-native-runs", "-o", runs_.string(),
                                   "--", gnu_app("exit_in_region")});
  // Every run failed, but each left a complete profile: the report analyses them, so exit 0.
  ASSERT_EQ(outcome.status, 0) << outcome.err;
  EXPECT_THAT(outcome.err, HasSubstr("ompscan: 2 failed runs left a complete profile"));
  EXPECT_THAT(outcome.err, HasSubstr("ompscan: t1-r0 failed: exit status 3 (output in "));
  EXPECT_THAT(outcome.err, HasSubstr("ompscan: t2-r0 failed: exit status 3"));
  EXPECT_THAT(outcome.err, HasSubstr("2 failed"));
  for (const char* id : {"t1-r0", "t2-r0"}) {
    const json file = run_file(id);
    EXPECT_EQ(file["status"], "failed");
    EXPECT_EQ(file["exit_status"], 3);
    EXPECT_TRUE(file["signal"].is_null());
    // exit() from inside a region still finalizes the runtime, so the tool writes its profile.
    EXPECT_TRUE(file["profile"].is_object()) << file["profile_error"];
  }
}

TEST_F(RunCommandTest, NonOpenMPFailureAndSignalAreRecorded) {
  Outcome outcome = ompscan({"--threads", "1,2", "-o", runs_.string(), "--", "false"});
  ASSERT_EQ(outcome.status, 1) << outcome.err;
  EXPECT_EQ(run_file("t1-r0")["exit_status"], 1);
  EXPECT_EQ(run_file("t2-r0")["exit_status"], 1);
  EXPECT_TRUE(run_file("t2-r0")["runtime"]["library"].is_null());
  EXPECT_TRUE(run_file("t2-r0")["profile"].is_null());
  EXPECT_THAT(run_file("t2-r0")["profile_error"].get<std::string>(),
              HasSubstr("the tool wrote no profile"));

  outcome = ompscan(
      {"--threads", "1", "-o", (dir_ / "signal").string(), "--", "/bin/sh", "-c", "kill -ABRT $$"});
  ASSERT_EQ(outcome.status, 1) << outcome.err;
  const json file = json::parse(slurp(dir_ / "signal" / "t1-r0.json"));
  EXPECT_EQ(file["status"], "failed");
  EXPECT_TRUE(file["exit_status"].is_null());
  EXPECT_EQ(file["signal"], SIGABRT);
  EXPECT_EQ(file["signal_name"], "SIGABRT");
}

TEST_F(RunCommandTest, InputsReplaceTheirPlaceholder) {
  const Outcome outcome = ompscan({"--threads", "1", "--inputs", "64", "128", "-o", runs_.string(),
                                   "--", llvm_app("mandelbrot"), "{input}"});
  ASSERT_EQ(outcome.status, 0) << outcome.err;
  EXPECT_THAT(run_files(), ElementsAre("t1-i0-r0.json", "t1-i1-r0.json"));
  const json small = run_file("t1-i0-r0");
  const json large = run_file("t1-i1-r0");
  EXPECT_EQ(small["command"], json({llvm_app("mandelbrot"), "64"}));
  EXPECT_EQ(small["template"], json({llvm_app("mandelbrot"), "{input}"}));
  EXPECT_EQ(small["input"], "64");
  EXPECT_EQ(small["input_index"], 0);
  EXPECT_EQ(large["input"], "128");
  EXPECT_EQ(large["input_index"], 1);
  EXPECT_NE(slurp(runs_ / "t1-i0-r0.log"), slurp(runs_ / "t1-i1-r0.log"));
}

TEST_F(RunCommandTest, ThreadsPlaceholderBindingAndRepetitions) {
  const Outcome outcome = ompscan({"--threads", "1,2", "--reps", "2", "--bind", "close", "--places",
                                   "threads", "-o", runs_.string(), "--", "/bin/sh", "-c",
                                   "echo \"$OMP_PROC_BIND $OMP_PLACES $1\"", "sh", "n={threads}"});
  ASSERT_EQ(outcome.status, 0) << outcome.err;
  EXPECT_THAT(run_files(), ElementsAre("t1-r0.json", "t1-r1.json", "t2-r0.json", "t2-r1.json"));
  const json file = run_file("t2-r1");
  EXPECT_EQ(file["repetition"], 1);
  EXPECT_EQ(file["bind"], "close");
  EXPECT_EQ(file["places"], "threads");
  EXPECT_EQ(slurp(runs_ / "t2-r1.log"), "close threads n=2\n");
  // Repetition-major: every configuration's first repetition started before any second one.
  EXPECT_LE(run_file("t2-r0")["started"].get<std::string>(),
            run_file("t1-r1")["started"].get<std::string>());
}

TEST_F(RunCommandTest, OversubscriptionIsMarked) {
  const Outcome outcome =
      ompscan({"--threads", "1,64", "--oversubscribe", "-o", runs_.string(), "--", "true"});
  ASSERT_EQ(outcome.status, 0) << outcome.err;
  const json file = run_file("t64-r0");
  EXPECT_EQ(file["oversubscribed"], file["hardware_threads"].get<int>() < 64);
  EXPECT_EQ(run_file("t1-r0")["oversubscribed"], false);
}

TEST_F(RunCommandTest, ResumeSkipsCompleteRunsAndForceRedoesThem) {
  const std::vector<std::string> args = {"--threads", "1,2",          "--reps", "2",
                                         "-o",        runs_.string(), "--",     "true"};
  ASSERT_EQ(ompscan(args).status, 0);
  ASSERT_EQ(run_files().size(), 4u);
  const auto inode = [&](const std::string& id) {
    struct stat s {};
    stat((runs_ / (id + ".json")).c_str(), &s);
    return s.st_ino;
  };
  const auto kept = inode("t1-r0");
  fs::remove(runs_ / "t2-r1.json");
  spit(runs_ / "t1-r1.json", "{\"format\": \"ompscan-run-1\", \"run_");  // not complete

  Outcome outcome = ompscan(args);
  ASSERT_EQ(outcome.status, 0) << outcome.err;
  EXPECT_THAT(outcome.err, HasSubstr("resuming in " + runs_.string() + ": 2 of 4 runs"));
  EXPECT_THAT(outcome.err, HasSubstr("(2 made now)"));
  EXPECT_EQ(inode("t1-r0"), kept);
  EXPECT_EQ(run_file("t1-r1")["status"], "ok");
  EXPECT_EQ(run_file("t2-r1")["status"], "ok");

  outcome = ompscan(args);
  EXPECT_EQ(outcome.status, 0);
  EXPECT_THAT(outcome.err, HasSubstr("all 4 runs are already in"));
  EXPECT_EQ(inode("t1-r0"), kept);

  std::vector<std::string> forced = args;
  forced.insert(forced.begin(), "--force");
  ASSERT_EQ(ompscan(forced).status, 0);
  EXPECT_NE(inode("t1-r0"), kept);

  // The same directory for another command is refused rather than mixed.
  std::vector<std::string> other = args;
  other.back() = "false";
  const Outcome refused = ompscan(other);
  EXPECT_EQ(refused.status, 2);
  EXPECT_THAT(refused.err, HasSubstr("is a run of another configuration (command "));
}

TEST_F(RunCommandTest, TimeoutKillsTheRunAndRecordsIt) {
  const auto start = std::chrono::steady_clock::now();
  const Outcome outcome =
      ompscan({"--threads", "1", "--timeout", "0.5", "-o", runs_.string(), "--", "sleep", "20"});
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  ASSERT_EQ(outcome.status, 1) << outcome.err;
  EXPECT_THAT(outcome.err, HasSubstr("t1-r0 failed: timed out after 0.5 s"));
  const json file = run_file("t1-r0");
  EXPECT_EQ(file["status"], "failed");
  EXPECT_EQ(file["timed_out"], true);
  EXPECT_EQ(file["signal"], SIGKILL);
}

TEST_F(RunCommandTest, InterruptKeepsCompletedRunsAndPrintsTheResumeCommand) {
  // The two-thread run waits while the marker exists; the one-thread run finishes at once.
  const fs::path marker = dir_ / "marker";
  spit(marker, "");
  const std::string script =
      "if [ \"$OMP_NUM_THREADS\" = 2 ] && [ -e " + marker.string() + " ]; then sleep 30; fi";
  const std::vector<std::string> argv = {OMPSCALE_OMPSCAN_BIN, "run", "--threads", "1,2", "-o",
                                         runs_.string(),       "--",  "/bin/sh",   "-c",  script};
  const fs::path err_file = dir_ / "interrupted.stderr";
  int status = -1;
  {
    test_support::ChildProcess child(argv, "/dev/null", dir_ / "interrupted.stdout", err_file);
    for (int i = 0; i < 1000 && !fs::exists(runs_ / "t2-r0.log"); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_TRUE(fs::exists(runs_ / "t1-r0.json"));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    child.signal(SIGINT);
    status = child.wait();
  }
  const std::string err = slurp(err_file);
  EXPECT_EQ(status, 130) << err;
  EXPECT_THAT(err, HasSubstr("ompscan: interrupted at t2-r0; 1 of 2 runs are in"));
  // The resume command starts with ompscan as it was invoked: a bare "ompscan" is not on PATH.
  EXPECT_THAT(err, HasSubstr(std::string("Resume with:\n  ") + OMPSCALE_OMPSCAN_BIN +
                             " run --threads 1,2 -o " + runs_.string() + " -- /bin/sh -c '"));
  EXPECT_THAT(run_files(), ElementsAre("t1-r0.json"));
  EXPECT_FALSE(fs::exists(runs_ / "t2-r0.log"));
  // The interrupted run's process group is gone with it (no sleep left behind).
  EXPECT_EQ(test_support::run_program({"/usr/bin/pgrep", "-f", marker.string()}, dir_).status, 1);

  fs::remove(marker);
  const Outcome resumed =
      ompscan({"--threads", "1,2", "-o", runs_.string(), "--", "/bin/sh", "-c", script});
  EXPECT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_THAT(resumed.err, HasSubstr("1 of 2 runs already there"));
  EXPECT_THAT(run_files(), ElementsAre("t1-r0.json", "t2-r0.json"));
}

TEST_F(RunCommandTest, ProgressLineWhenAsked) {
  const Outcome outcome =
      ompscan({"--threads", "1,2", "--progress", "always", "-o", runs_.string(), "--", "true"});
  EXPECT_EQ(outcome.status, 0);
  EXPECT_THAT(outcome.err, HasSubstr("\rompscan: run 2/2 t2-r0 0 s"));
  const Outcome quiet = ompscan({"--threads", "1", "-o", (dir_ / "quiet").string(), "--", "true"});
  EXPECT_THAT(quiet.err, ::testing::Not(HasSubstr("\r")));  // stderr is a file here
}

TEST_F(RunCommandTest, MalformedOptionsGiveOneLineAndExitTwo) {
  const std::string out = runs_.string();
  expect_usage_error(ompscan({"--threads", "0", "-o", out, "--", "true"}), "--threads '0'");
  expect_usage_error(ompscan({"--threads", "1,x", "-o", out, "--", "true"}), "unknown item 'x'");
  expect_usage_error(ompscan({"--reps", "0", "-o", out, "--", "true"}), "--reps 0");
  expect_usage_error(ompscan({"--reps", "many", "-o", out, "--", "true"}), "--reps");
  expect_usage_error(ompscan({"--bogus", "-o", out, "--", "true"}), "--bogus");
  expect_usage_error(ompscan({"--threads", "1"}), "no application given");
  expect_usage_error(ompscan({"--threads", "1", "true"}),
                     "'true': put the application and its arguments after --");
  expect_usage_error(ompscan({"--inputs", "a", "-o", out, "--", "echo"}),
                     "--inputs given but no argument contains {input}");
  expect_usage_error(ompscan({"-o", out, "--", "echo", "{input}"}),
                     "uses {input} but no --inputs were given");
  expect_usage_error(ompscan({"-o", out, "--", "/nonexistent/app"}),
                     "/nonexistent/app: no such file");
  expect_usage_error(ompscan({"-o", out, "--", "/etc/passwd"}), "not an executable file");
  expect_usage_error(ompscan({"-o", out, "--", "no-such-app-ompscan"}), "not found on PATH");
  expect_usage_error(ompscan({"--threads", "4096", "-o", out, "--", "true"}),
                     "pass --oversubscribe");
  expect_usage_error(ompscan({"--tool", "/nonexistent/libompscan.so", "-o", out, "--", "true"}),
                     "--tool /nonexistent/libompscan.so: no such file");
  expect_usage_error(ompscan({"--timeout", "-1", "-o", out, "--", "true"}), "--timeout -1");
  expect_usage_error(ompscan({"--progress", "sometimes", "-o", out, "--", "true"}),
                     "--progress 'sometimes'");
  expect_usage_error(ompscan({"--bind", "tight", "-o", out, "--", "true"}), "--bind 'tight'");
  expect_usage_error(ompscan({"-o", "/proc/ompscan-runs", "--", "true"}),
                     "-o /proc/ompscan-runs: cannot create the directory");
  EXPECT_FALSE(fs::exists(runs_));  // nothing was run
}

TEST_F(RunCommandTest, OpenMP51GccBinaryIsRefusedBeforeAnyRun) {
  std::string gcc;
  for (const char* candidate : {"/usr/bin/gcc", "/usr/local/bin/gcc"})
    if (access(candidate, X_OK) == 0) gcc = candidate;
  if (gcc.empty()) GTEST_SKIP() << "no gcc to build an OpenMP 5.1 binary";
  spit(dir_ / "display.c", "#include <omp.h>\nint main(void) { omp_display_env(0); return 0; }\n");
  const std::string app = (dir_ / "display").string();
  ASSERT_EQ(
      test_support::run_program({gcc, "-fopenmp", "-o", app, (dir_ / "display.c").string()}, dir_)
          .status,
      0);
  expect_usage_error(ompscan({"-o", runs_.string(), "--", app}),
                     "is GCC-built and needs libgomp symbol version OMP_5.1 that ");
  EXPECT_FALSE(fs::exists(runs_));
}

TEST_F(RunCommandTest, HelpListsTheOptions) {
  const Outcome outcome = ompscan({"--help"});
  EXPECT_EQ(outcome.status, 0);
  for (const char* option : {"--threads", "--inputs", "--bind", "--places", "--reps", "--timeout",
                             "--oversubscribe", "--force", "--tool", "--output"})
    EXPECT_THAT(outcome.out, HasSubstr(option));
  EXPECT_THAT(outcome.out, HasSubstr("ompscan run [options] -- APP [ARGS...]"));
}

}  // namespace
}  // namespace ompscale::regions

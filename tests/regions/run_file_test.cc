#include "regions/run/run_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>

#include "common/error.h"
#include "regions/report/read_runs.h"
#include "regions/run/sweep.h"
#include "tests/support/process.h"

namespace ompscale::regions {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;

RunRecord ok_record() {
  RunRecord record;
  record.run.id = "t4-i0-r0";
  record.run.threads = 4;
  record.run.input_index = 0;
  record.run.input = "800";
  record.run.command = {"./mandel", "800", "4"};
  record.command_template = {"./mandel", "{input}", "{threads}"};
  record.bind = "spread";
  record.places = "cores";
  record.started = "2026-11-22T01:02:03Z";
  record.launch.end = LaunchResult::End::kExited;
  record.launch.wall_ns = 1234567890;
  record.runtime_library = "/usr/lib/llvm-14/lib/libomp.so.5";
  record.energy_reason = "no /sys/class/powercap/intel-rapl:* zones";
  record.counters_reason = "perf_event_paranoid is 3";
  record.profile = json{{"format", "ompscan-profile-1"}, {"regions", json::array()}};
  record.tool = "/opt/lib/libompscan.so";
  record.log = "t4-i0-r0.log";
  record.openmp_environment = {{"OMP_NUM_THREADS", "4"}};
  record.host = "node1";
  record.hardware_threads = 2;
  return record;
}

TEST(RunFile, OkRunHasTheDocumentedFields) {
  const json file = run_file_json(ok_record());
  EXPECT_EQ(file["format"], "ompscan-run-1");
  EXPECT_EQ(file["run_id"], "t4-i0-r0");
  EXPECT_EQ(file["command"], json({"./mandel", "800", "4"}));
  EXPECT_EQ(file["template"], json({"./mandel", "{input}", "{threads}"}));
  EXPECT_EQ(file["threads"], 4);
  EXPECT_EQ(file["input"], "800");
  EXPECT_EQ(file["input_index"], 0);
  EXPECT_EQ(file["repetition"], 0);
  EXPECT_EQ(file["bind"], "spread");
  EXPECT_EQ(file["places"], "cores");
  EXPECT_EQ(file["oversubscribed"], false);
  EXPECT_EQ(file["started"], "2026-11-22T01:02:03Z");
  EXPECT_EQ(file["status"], "ok");
  EXPECT_EQ(file["exit_status"], 0);
  EXPECT_TRUE(file["signal"].is_null());
  EXPECT_EQ(file["timed_out"], false);
  EXPECT_EQ(file["wall_ns"], 1234567890);
  EXPECT_EQ(file["runtime"],
            json({{"library", "/usr/lib/llvm-14/lib/libomp.so.5"}, {"gomp_abi", false}}));
  EXPECT_EQ(file["energy"],
            json({{"available", false}, {"reason", "no /sys/class/powercap/intel-rapl:* zones"}}));
  EXPECT_FALSE(file.contains("energy_joules"));
  EXPECT_EQ(file["counters"], json({{"available", false}, {"reason", "perf_event_paranoid is 3"}}));
  EXPECT_FALSE(file.contains("cycles"));
  EXPECT_EQ(file["profile"]["format"], "ompscan-profile-1");
  EXPECT_EQ(file["profile_error"], "");
  EXPECT_EQ(file["environment"], json({{"OMP_NUM_THREADS", "4"}}));
  EXPECT_EQ(file["log"], "t4-i0-r0.log");
  EXPECT_EQ(file["hardware_threads"], 2);
  EXPECT_TRUE(file["ompscan_version"].is_string());
}

TEST(RunFile, MeasuredEnergyAndCountersAppearWhenAvailable) {
  RunRecord record = ok_record();
  record.energy_reason.clear();
  record.energy.joules = {{"package-0", 12.5}, {"package-0/core", 7.25}};
  record.energy.skipped = {"intel-rapl:1 (package-1): cannot read energy_uj: Permission denied"};
  record.counters_reason.clear();
  record.counters = {{"cycles", 1000}, {"instructions", 2500}};
  record.counters_scaled = true;
  const json file = run_file_json(record);
  EXPECT_EQ(file["energy"]["available"], true);
  EXPECT_EQ(file["energy"]["skipped"].size(), 1u);
  EXPECT_EQ(file["energy_joules"], json({{"package-0", 12.5}, {"package-0/core", 7.25}}));
  EXPECT_EQ(file["counters"], json({{"available", true}, {"scope", "user"}, {"scaled", true}}));
  EXPECT_EQ(file["cycles"], 1000);
  EXPECT_EQ(file["instructions"], 2500);
}

TEST(RunFile, FailedRunsRecordHowTheyEnded) {
  RunRecord record = ok_record();
  record.run.input_index.reset();
  record.bind.reset();
  record.launch.end = LaunchResult::End::kExited;
  record.launch.exit_status = 3;
  json file = run_file_json(record);
  EXPECT_EQ(file["status"], "failed");
  EXPECT_EQ(file["exit_status"], 3);
  EXPECT_TRUE(file["signal"].is_null());
  EXPECT_TRUE(file["input"].is_null());
  EXPECT_TRUE(file["input_index"].is_null());
  EXPECT_TRUE(file["bind"].is_null());

  record.launch.end = LaunchResult::End::kSignaled;
  record.launch.signal = SIGSEGV;
  file = run_file_json(record);
  EXPECT_EQ(file["status"], "failed");
  EXPECT_TRUE(file["exit_status"].is_null());
  EXPECT_EQ(file["signal"], SIGSEGV);
  EXPECT_EQ(file["signal_name"], "SIGSEGV");
  EXPECT_EQ(file["timed_out"], false);

  record.launch.end = LaunchResult::End::kTimedOut;
  record.launch.signal = SIGKILL;
  file = run_file_json(record);
  EXPECT_EQ(file["status"], "failed");
  EXPECT_EQ(file["signal"], SIGKILL);
  EXPECT_EQ(file["timed_out"], true);

  record.launch.end = LaunchResult::End::kExecFailed;
  record.launch.error = "Exec format error";
  file = run_file_json(record);
  EXPECT_EQ(file["status"], "failed");
  EXPECT_EQ(file["exit_status"], 127);
  EXPECT_EQ(file["error"], "cannot execute ./mandel: Exec format error");
}

// The contract with `ompscan report`: what run writes, report reads.
TEST(RunFile, ReportReadsWhatRunWrites) {
  RunRecord record = ok_record();
  record.launch.end = LaunchResult::End::kSignaled;
  record.launch.signal = SIGKILL;
  const report::RunFile read = report::parse_run_file(run_file_json(record).dump(2), "x.json");
  EXPECT_EQ(read.run_id, "t4-i0-r0");
  EXPECT_EQ(read.threads, 4);
  EXPECT_EQ(read.input, "800");
  EXPECT_TRUE(read.failed);
  EXPECT_EQ(read.signal, SIGKILL);
  EXPECT_FALSE(read.exit_status.has_value());
  EXPECT_EQ(read.wall_ns, 1234567890.0);

  record = ok_record();
  record.run.input_index.reset();
  record.profile = nullptr;
  record.profile_error = "the tool wrote no profile";
  const report::RunFile no_input = report::parse_run_file(run_file_json(record).dump(), "y.json");
  EXPECT_EQ(no_input.input, "");
  EXPECT_FALSE(no_input.profile.has_value());
  EXPECT_EQ(no_input.profile_error, "the tool wrote no profile");
}

class RunFileOnDisk : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ompscan-runfile-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

TEST_F(RunFileOnDisk, ProfileIsReadOrItsAbsenceExplained) {
  LaunchResult exited;
  std::string error;
  EXPECT_TRUE(read_profile(path("none.json"), exited, error).is_null());
  EXPECT_THAT(error, HasSubstr("the tool wrote no profile: the application did not start"));

  LaunchResult killed;
  killed.end = LaunchResult::End::kSignaled;
  killed.signal = SIGKILL;
  EXPECT_TRUE(read_profile(path("none.json"), killed, error).is_null());
  EXPECT_THAT(error, HasSubstr("ended by a signal before the runtime finalized"));

  test_support::spit(path("broken.json"), "{\"format\": ");
  EXPECT_TRUE(read_profile(path("broken.json"), exited, error).is_null());
  EXPECT_THAT(error, HasSubstr("the tool's profile is not valid JSON"));

  test_support::spit(path("array.json"), "[1, 2]");
  EXPECT_TRUE(read_profile(path("array.json"), exited, error).is_null());
  EXPECT_EQ(error, "the tool's profile is not a JSON object");

  test_support::spit(path("good.json"), R"({"format": "ompscan-profile-1", "max_threads": 2})");
  const json profile = read_profile(path("good.json"), exited, error);
  EXPECT_EQ(profile["max_threads"], 2);
  EXPECT_EQ(error, "");
}

TEST_F(RunFileOnDisk, ResumeSkipsOnlyCompleteFilesOfTheSameConfiguration) {
  const RunRecord record = ok_record();
  const std::string file = path("t4-i0-r0.json");
  EXPECT_FALSE(run_file_complete(file, record.run, record.bind, record.places));

  test_support::spit(file, run_file_json(record).dump(2));
  EXPECT_TRUE(run_file_complete(file, record.run, record.bind, record.places));

  // Not a finished run file: made again.
  test_support::spit(file, "{\"format\": \"ompscan-run-1\", \"run_id\": \"t4-");
  EXPECT_FALSE(run_file_complete(file, record.run, record.bind, record.places));
  test_support::spit(file, R"({"format": "ompscan-run-1", "run_id": "t4-i0-r0"})");
  EXPECT_FALSE(run_file_complete(file, record.run, record.bind, record.places));
  json other_id = run_file_json(record);
  other_id["run_id"] = "t2-i0-r0";
  test_support::spit(file, other_id.dump());
  EXPECT_FALSE(run_file_complete(file, record.run, record.bind, record.places));
}

TEST_F(RunFileOnDisk, ResumingIntoAnotherConfigurationIsRefused) {
  const RunRecord record = ok_record();
  const std::string file = path("t4-i0-r0.json");
  test_support::spit(file, run_file_json(record).dump(2));

  PlannedRun other_input = record.run;
  other_input.input = "1600";
  other_input.command = {"./mandel", "1600", "4"};
  try {
    run_file_complete(file, other_input, record.bind, record.places);
    ADD_FAILURE() << "resumed into another command's runs";
  } catch (const UsageError& e) {
    EXPECT_THAT(e.what(), HasSubstr(file + " is a run of another configuration (command "));
    EXPECT_THAT(e.what(), HasSubstr("use another -o DIR, or --force to replace its runs"));
  }
  EXPECT_THROW(run_file_complete(file, record.run, std::string("close"), record.places),
               UsageError);
  EXPECT_THROW(run_file_complete(file, record.run, record.bind, std::nullopt), UsageError);
}

TEST(ResumeCommand, QuotesForTheShellAndDropsForce) {
  EXPECT_EQ(resume_command({"build/regions/ompscan", "run", "--threads", "1,2", "--force", "-o",
                            "my runs", "--", "./app", "--force", "it's"}),
            "build/regions/ompscan run --threads 1,2 -o 'my runs' -- ./app --force 'it'\\''s'");
  EXPECT_EQ(
      resume_command({"/opt/my tools/ompscan", "run", "--inputs", "", "--", "./app", "{input}"}),
      "'/opt/my tools/ompscan' run --inputs '' -- ./app '{input}'");
}

}  // namespace
}  // namespace ompscale::regions

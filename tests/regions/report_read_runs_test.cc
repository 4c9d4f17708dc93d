// Reading run files: the fields of a fixture, one-line errors naming the file and the field,
// failed runs and runs without a profile set aside.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "common/error.h"
#include "common/output_file.h"
#include "regions/report/read_runs.h"
#include "tests/regions/report_fixtures.h"

namespace ompscale::regions::report {
namespace {

using testing::fixture_dir;

std::string fixture_file(const std::string& dir, const std::string& run) {
  return fixture_dir(dir) + "/" + run + ".json";
}

/// The InputError message of parsing `text`, or "" when it parses.
std::string parse_error(const std::string& text) {
  try {
    parse_run_file(text, "runs/x.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

nlohmann::json valid_run() {
  return nlohmann::json::parse(read_input(fixture_file("locks", "t2-in2000000-r0")));
}

TEST(ReportReadRuns, ReadsEveryFieldTheAnalysisUses) {
  const std::string path = fixture_file("locks", "t2-in2000000-r0");
  const RunFile run = parse_run_file(read_input(path), path);
  EXPECT_EQ(run.run_id, "t2-in2000000-r0");
  EXPECT_EQ(run.threads, 2);
  EXPECT_EQ(run.input, "2000000");
  EXPECT_EQ(run.repetition, 0);
  EXPECT_FALSE(run.failed);
  ASSERT_TRUE(run.profile.has_value());
  ASSERT_EQ(run.profile->regions.size(), 4u);
  const RegionRecord& shared = run.profile->regions[3];
  EXPECT_EQ(shared.kind, RegionKind::kParallel);
  EXPECT_EQ(shared.location.label(), "lockbench.c:52 (shared_lock)");
  EXPECT_EQ(shared.location.offset, "0x2400");
  ASSERT_EQ(shared.threads.size(), 2u);
  EXPECT_EQ(shared.threads[1].thread, 1);
  EXPECT_GT(shared.threads[1].work_ns, 0.0);
  EXPECT_EQ(shared.threads[1].lock_acquisitions, 1000000.0);
  EXPECT_EQ(shared.threads[1].lock_timed, 125000.0);
  ASSERT_EQ(shared.locks.size(), 1u);
  EXPECT_EQ(shared.locks[0].kind, "lock");
  EXPECT_EQ(shared.locks[0].acquisitions, 2000000.0);
  EXPECT_EQ(shared.locks[0].fastest_ns, 20.0);
  const RegionRecord& serial = run.profile->regions[0];
  EXPECT_EQ(serial.kind, RegionKind::kSerial);
  EXPECT_EQ(serial.name, "serial before 2");
  EXPECT_TRUE(serial.threads.empty());
}

TEST(ReportReadRuns, ReadsTaskCountsAndTimeInTasks) {
  const std::string path = testing::fixture_dir("tasks") + "/t2-in30-r1.json";
  const RunFile run = parse_run_file(read_input(path), path);
  ASSERT_TRUE(run.profile.has_value());
  ASSERT_EQ(run.profile->regions.size(), 3u);
  const RegionRecord& tasks = run.profile->regions[1];
  EXPECT_EQ(tasks.tasks_created, 800.0);
  EXPECT_EQ(tasks.tasks_executed, 792.0);
  ASSERT_EQ(tasks.threads.size(), 2u);
  EXPECT_EQ(tasks.threads[0].task_ns, 2.0e6);
  EXPECT_EQ(tasks.threads[1].task_ns, 2.4e6);
  const RegionRecord& plain = run.profile->regions[2];
  EXPECT_EQ(plain.tasks_created, 0.0);
  EXPECT_EQ(plain.threads[1].task_ns, 0.0);
  // Profiles without task fields (older tools, manual regions) read as no tasks.
  nlohmann::json doc = nlohmann::json::parse(read_input(path));
  doc["profile"]["regions"][1].erase("tasks");
  for (auto& t : doc["profile"]["regions"][1]["threads"]) t.erase("task_ns");
  const RunFile without = parse_run_file(doc.dump(), "x.json");
  EXPECT_EQ(without.profile->regions[1].tasks_created, 0.0);
  EXPECT_EQ(without.profile->regions[1].tasks_executed, 0.0);
  EXPECT_EQ(without.profile->regions[1].threads[0].task_ns, 0.0);
  doc["profile"]["regions"][1]["threads"][1]["task_ns"] = "long";
  EXPECT_EQ(
      parse_error(doc.dump()),
      "runs/x.json:1: profile.regions[1].threads[1].task_ns: expected a number, found string");
}

// A schedule(runtime) loop says what it ran with and who chose it (the tool's
// "omp_schedule_source"), and both read back from the words.
TEST(ReportReadRuns, RuntimeSchedulesSayWhoChoseThem) {
  const std::string guided = "guided,7", ran = "static";
  EXPECT_EQ(schedule_words("runtime", 0.0, &guided), "runtime (OMP_SCHEDULE=guided,7)");
  EXPECT_EQ(schedule_words("runtime", 0.0, &ran, ScheduleSource::kProgram),
            "runtime (omp_set_schedule: static)");
  EXPECT_EQ(schedule_words("runtime", 0.0, &ran, ScheduleSource::kProgramOrDefault),
            "runtime (ran as static)");
  EXPECT_EQ(schedule_words("runtime", 0.0, nullptr), "runtime");
  EXPECT_EQ(runtime_schedule_of("runtime (ran as dynamic,1)"), "dynamic,1");
  EXPECT_EQ(runtime_schedule_of("runtime (omp_set_schedule: static)"), "static");
  EXPECT_EQ(runtime_schedule_of("runtime (OMP_SCHEDULE=guided,7)"), "guided,7");
  EXPECT_EQ(runtime_schedule_of("runtime"), "");
  EXPECT_EQ(runtime_schedule_of("dynamic,4"), "");
  EXPECT_EQ(schedule_source_of("runtime (omp_set_schedule: static)"), ScheduleSource::kProgram);
  EXPECT_EQ(schedule_source_of("runtime (OMP_SCHEDULE=guided,7)"), ScheduleSource::kEnvironment);
  EXPECT_EQ(schedule_source_of("runtime"), ScheduleSource::kProgramOrDefault);
}

TEST(ReportReadRuns, LabelsFallBackToModuleAndOffset) {
  Location l;
  l.module = "/opt/app/bin/solver";
  l.offset = "0x4f0";
  EXPECT_EQ(l.label(), "solver+0x4f0");
  l.file = "/src/solver.c";
  l.line = 12;
  l.function = "step";
  EXPECT_EQ(l.label(), "solver.c:12 (step)");
}

TEST(ReportReadRuns, NotJsonNamesFileAndPosition) {
  const std::string e = parse_error("{\"format\": ");
  EXPECT_EQ(e.rfind("runs/x.json:1: invalid JSON: syntax error", 0), 0u) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos);
}

TEST(ReportReadRuns, OtherFormatsAreRefused) {
  EXPECT_EQ(parse_error("[1, 2]"),
            "runs/x.json:1: not an ompscan run file: the top level is not an object");
  EXPECT_EQ(parse_error(R"({"format": "ompscan-profile-1"})"),
            "runs/x.json:1: not an ompscan run file: format is 'ompscan-profile-1', expected "
            "ompscan-run-1");
  EXPECT_EQ(parse_error(R"({"threads": 4})"),
            "runs/x.json:1: not an ompscan run file: format is missing, expected ompscan-run-1");
}

TEST(ReportReadRuns, FieldErrorsNameTheField) {
  nlohmann::json doc = valid_run();
  doc["profile"]["regions"][3]["threads"][1]["work_ns"] = "fast";
  EXPECT_EQ(
      parse_error(doc.dump()),
      "runs/x.json:1: profile.regions[3].threads[1].work_ns: expected a number, found string");
  doc = valid_run();
  doc["profile"]["regions"][1].erase("wall_ns");
  EXPECT_EQ(parse_error(doc.dump()), "runs/x.json:1: profile.regions[1]: missing field 'wall_ns'");
  doc = valid_run();
  doc["status"] = "crashed";
  EXPECT_EQ(parse_error(doc.dump()), "runs/x.json:1: status: 'crashed' is neither ok nor failed");
  doc = valid_run();
  doc["profile"]["regions"][1]["executions_measured"] = 5;
  doc["profile"]["regions"][1]["executions"] = 1;
  EXPECT_EQ(parse_error(doc.dump()),
            "runs/x.json:1: profile.regions[1]: executions_measured (5) exceeds executions (1)");
  doc = valid_run();
  doc["profile"]["format"] = "ompscan-profile-2";
  EXPECT_EQ(parse_error(doc.dump()),
            "runs/x.json:1: profile: format is 'ompscan-profile-2', expected ompscan-profile-1");
  doc = valid_run();
  doc["threads"] = 0;
  EXPECT_EQ(parse_error(doc.dump()), "runs/x.json:1: threads: 0 is not a thread count");
}

// Fuzzer-found: numbers that do not fit were an uncaught exception or a float-to-int
// overflow; each is an input error naming the file, the line and the field.
TEST(ReportReadRuns, NumbersThatDoNotFitAreInputErrors) {
  EXPECT_EQ(parse_error("7e377"), "runs/x.json:1: invalid JSON: number overflow parsing '7e377'");
  nlohmann::json doc = valid_run();
  doc["threads"] = 7285475808;
  EXPECT_EQ(parse_error(doc.dump(1)).rfind("runs/x.json:", 0), 0u);
  EXPECT_THAT(parse_error(doc.dump()),
              ::testing::HasSubstr("threads: expected an integer in -2147483648..2147483647, "
                                   "found 7285475808"));
  doc = valid_run();
  doc["profile"]["regions"][2]["id"] = 1.92e19;
  const std::string id_error = parse_error(doc.dump(1));
  EXPECT_THAT(id_error, ::testing::HasSubstr("profile.regions[2].id: expected an integer in "
                                             "0..2^63-1, found 1.92e+19"));
  EXPECT_EQ(id_error.rfind("runs/x.json:", 0), 0u);
  EXPECT_EQ(id_error.find("runs/x.json:1:"), std::string::npos)
      << "the id's own line: " << id_error;
  doc = valid_run();
  doc["profile"]["regions"][2]["parent"] = -1;
  EXPECT_THAT(parse_error(doc.dump()), ::testing::HasSubstr("profile.regions[2].parent"));
}

TEST(ReportReadRuns, MissingOptionalFieldsReadAsNotMeasured) {
  nlohmann::json doc = valid_run();
  for (auto& t : doc["profile"]["regions"][3]["threads"]) t.erase("startup_ns");
  doc["profile"]["regions"][3].erase("locks");
  doc["profile"]["regions"][3].erase("loops");
  doc["unknown_future_field"] = {1, 2, 3};
  const RunFile run = parse_run_file(doc.dump(), "x.json");
  EXPECT_EQ(run.profile->regions[3].threads[0].startup_ns, 0.0);
  EXPECT_TRUE(run.profile->regions[3].locks.empty());
}

TEST(ReportReadRuns, DirectorySetsAsideFailedRunsAndRunsWithoutProfile) {
  const RunSet set = read_run_directory(fixture_dir("mandel-static"));
  EXPECT_EQ(set.usable.size(), 24u);
  ASSERT_EQ(set.failed.size(), 1u);
  EXPECT_EQ(set.failed[0].run_id, "t8-in800-r3");
  EXPECT_EQ(set.failed[0].signal, 9);
  ASSERT_EQ(set.without_profile.size(), 1u);
  EXPECT_EQ(set.without_profile[0].run_id, "t2-in400-r3");
  EXPECT_NE(set.without_profile[0].profile_error.find("no profile"), std::string::npos);
}

TEST(ReportReadRuns, DirectoryErrors) {
  try {
    read_run_directory(fixture_dir("no-such-directory"));
    ADD_FAILURE() << "a missing directory was accepted";
  } catch (const UsageError& e) {
    // Not "not a directory": the path does not exist.
    EXPECT_NE(std::string(e.what()).find("no such directory"), std::string::npos) << e.what();
  }
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("ompscan-read-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(fixture_file("locks", "t1-in2000000-r0"), dir / "a.json",
                             std::filesystem::copy_options::overwrite_existing);
  std::ofstream(dir / "b.json") << "{\"format\": \"ompscan-run-2\"}";
  std::ofstream(dir / "notes.txt") << "not a run file, and not read";
  try {
    read_run_directory(dir.string());
    ADD_FAILURE() << "b.json was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), (dir / "b.json").string() +
                                         ":1: not an ompscan run file: format is 'ompscan-run-2', "
                                         "expected ompscan-run-1");
  }
  std::filesystem::remove(dir / "b.json");
  EXPECT_EQ(read_run_directory(dir.string()).usable.size(), 1u);
  std::filesystem::remove_all(dir);
}

TEST(ReportReadRuns, StrayJsonFilesAreSkippedWithANote) {
  // One notes.json next to the runs used to abort the whole report.
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("ompscan-stray-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(fixture_file("locks", "t1-in2000000-r0"), dir / "a.json",
                             std::filesystem::copy_options::overwrite_existing);
  std::ofstream(dir / "notes.json") << "{\"comment\": \"measured on the quiet machine\"}";
  std::ofstream(dir / "plot.json") << "[1, 2";
  std::ofstream(dir / "other.json") << "{\"format\": \"something-else\"}";
  const RunSet set = read_run_directory(dir.string());
  EXPECT_EQ(set.usable.size(), 1u);
  EXPECT_EQ(set.skipped, (std::vector<std::string>{"notes.json (no format field)",
                                                   "other.json (format something-else)",
                                                   "plot.json (not JSON)"}));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ompscale::regions::report

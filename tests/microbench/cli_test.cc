// End-to-end tests of `ompbench`: the built driver (OMPSCALE_OMPBENCH_BIN) runs as a child process
// and starts the real workers (gcc + libgomp and, where built, clang + libomp). Measurements are
// kept tiny (few repetitions, short EPCC test times); nothing here checks how fast a construct is,
// only that every value arrives, is labelled right, and survives interrupts and resumes.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "common/csv.h"
#include "common/host_name.h"
#include "microbench/catalogue.h"
#include "microbench/result_row.h"
#include "tests/support/process.h"

namespace ompscale::microbench {
namespace {

namespace fs = std::filesystem;
using test_support::Outcome;
using test_support::slurp;
using ::testing::HasSubstr;

bool llvm_worker_built() {
  return access((fs::path(OMPSCALE_OMPBENCH_BIN).parent_path() / "ompbench-worker-llvm").c_str(),
                X_OK) == 0;
}

// The rows of a results file as maps column -> value; fails the test on a malformed file.
std::vector<std::map<std::string, std::string>> read_rows(const std::string& text) {
  std::vector<std::map<std::string, std::string>> rows;
  const std::vector<CsvRecord> records = read_csv(text, "results");
  EXPECT_FALSE(records.empty());
  if (records.empty()) return rows;
  const std::vector<std::string>& header = records[0].fields;
  for (std::size_t i = 1; i < records.size(); ++i) {
    EXPECT_EQ(records[i].fields.size(), header.size()) << "line " << records[i].line;
    std::map<std::string, std::string> row;
    for (std::size_t c = 0; c < header.size() && c < records[i].fields.size(); ++c)
      row[header[c]] = records[i].fields[c];
    rows.push_back(std::move(row));
  }
  return rows;
}

class OmpbenchCli : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/ompbench-cli-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    // Tests neither read nor extend the user's canary history (children inherit this).
    setenv("OMPBENCH_CANARY_STORE", "none", 1);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  Outcome run(const std::vector<std::string>& args) {
    std::vector<std::string> argv{OMPSCALE_OMPBENCH_BIN};
    argv.insert(argv.end(), args.begin(), args.end());
    return test_support::run_program(argv, dir_);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

TEST_F(OmpbenchCli, ListNamesEveryConstructOfTheCatalogue) {
  const Outcome out = run({"list"});
  ASSERT_EQ(out.status, 0) << out.err;
  for (const ConstructInfo& c : catalogue())
    EXPECT_THAT(out.out, HasSubstr("  " + std::string(c.name) + " ")) << c.name;
  EXPECT_THAT(out.out, HasSubstr("sched suite:"));
}

TEST_F(OmpbenchCli, PlatformPrintsTopologyAndClasses) {
  const Outcome out = run({"platform"});
  ASSERT_EQ(out.status, 0) << out.err;
  EXPECT_THAT(out.out, HasSubstr("hardware threads"));
  EXPECT_THAT(out.out, HasSubstr("po2"));
  const Outcome bcs = run({"platform", "--platform", "rwth-bcs"});
  ASSERT_EQ(bcs.status, 0) << bcs.err;
  EXPECT_THAT(bcs.out, HasSubstr("128"));  // its PO2 class reaches 128
}

// Fuzzer-found: a number beyond a double in a description exited 1, not 2.
TEST_F(OmpbenchCli, PlatformFileWithANumberBeyondADoubleExits2) {
  std::ofstream(path("overflow.json")) << "7e377";
  const Outcome out = run({"platform", "--platform", path("overflow.json")});
  EXPECT_EQ(out.status, 2) << out.err;
  EXPECT_THAT(out.err, HasSubstr("overflow.json:1: invalid JSON: number overflow parsing '7e377'"));
}

TEST_F(OmpbenchCli, MalformedOptionsGiveOneLineAndStatus2) {
  const std::vector<std::vector<std::string>> cases = {
      {"--threads", "0"},          {"--threads", "1,x"}, {"--construct", "barier"},
      {"--bind", "sideways"},      {"--suite", "io"},    {"--method", "fast"},
      {"--runtime", "intel"},      {"--reps", "0"},      {"--threads", "64"},
      {"--progress", "sometimes"}, {"--no-such-option"}, {"--places", "cpus"}};
  for (const auto& args : cases) {
    const Outcome out = run(args);
    EXPECT_EQ(out.status, 2) << args[0] << ": " << out.err;
    EXPECT_EQ(std::count(out.err.begin(), out.err.end(), '\n'), 1) << out.err;
    EXPECT_THAT(out.err, HasSubstr("ompbench: ")) << out.err;
    EXPECT_TRUE(out.out.empty());
  }
}

TEST_F(OmpbenchCli, MessagesNameTheCauseAndTheRightHelp) {
  const Outcome zero = run({"--threads", "0"});
  EXPECT_THAT(zero.err, HasSubstr("0 is not a thread count; thread counts start at 1"));
  const Outcome bogus = run({"import-epcc", "--bogus"});
  EXPECT_EQ(bogus.status, 2);
  EXPECT_THAT(bogus.err, HasSubstr("(see ompbench import-epcc --help)")) << bogus.err;
  const Outcome word = run({"lsit"});
  EXPECT_EQ(word.status, 2);
  EXPECT_THAT(word.err, HasSubstr("unknown subcommand 'lsit'; did you mean list?")) << word.err;
}

TEST_F(OmpbenchCli, PlatformFitsTheTerminal) {
  // The local machine's description (a CPU model string padded with spaces, on some machines)
  // wraps at the terminal's width.
  ::setenv("COLUMNS", "60", 1);
  const Outcome out = run({"platform"});
  ::unsetenv("COLUMNS");
  ASSERT_EQ(out.status, 0) << out.err;
  const std::string description = out.out.substr(0, out.out.find("topology:"));
  std::istringstream lines(description);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 60u) << line;
  EXPECT_EQ(description.find("   "), std::string::npos) << description;
}

TEST_F(OmpbenchCli, AMistypedOptionGetsTheNearestOne) {
  const Outcome thread = run({"--thread", "2"});
  EXPECT_EQ(thread.status, 2);
  EXPECT_THAT(thread.err, HasSubstr("did you mean --threads? (see ompbench --help)")) << thread.err;
  EXPECT_EQ(std::count(thread.err.begin(), thread.err.end(), '\n'), 1) << thread.err;
  const Outcome summary = run({"summary", "r.csv", "--fromat", "csv"});
  EXPECT_THAT(summary.err, HasSubstr("did you mean --format? (see ompbench summary --help)"))
      << summary.err;
  // Nothing close: no guess.
  const Outcome far = run({"--zzzzzz"});
  EXPECT_THAT(far.err, ::testing::Not(HasSubstr("did you mean"))) << far.err;
}

TEST_F(OmpbenchCli, ManyIncompleteConfigurationsAreSummarisedNotListed) {
  // A slow-phase threshold barely above the median and no re-measurement: most configurations
  // end short of --reps. They used to take one line each (hundreds in a full sweep).
  const Outcome out = run({"--construct",
                           "barrier,single,critical,atomic_update",
                           "--threads",
                           "1,2",
                           "--reps",
                           "25",
                           "--batch",
                           "5",
                           "--slow-factor",
                           "1.0001",
                           "--compute-slow-factor",
                           "1.0001",
                           "--max-remeasure",
                           "0",
                           "--max-wait",
                           "0",
                           "--progress",
                           "never",
                           "-o",
                           path("r.csv")});
  ASSERT_EQ(out.status, 0) << out.err;
  EXPECT_THAT(out.err, ::testing::ContainsRegex("[0-9]+ of 16 configurations are incomplete"));
  EXPECT_THAT(out.err, HasSubstr("(all in " + path("r.csv") + ".meta.json)"));
  // What to do about them, in the same paragraph: resume, allow more, or use the data.
  EXPECT_THAT(out.err, HasSubstr("To complete them, run the same command again: it measures only "
                                 "what is missing; a larger --max-remeasure (now 0)"));
  EXPECT_THAT(out.err, HasSubstr("Or use the values as they are"));
  EXPECT_EQ(std::count(out.err.begin(), out.err.end(), '\n'), 2) << out.err;  // and the noise line
}

TEST_F(OmpbenchCli, HelpFitsA100ColumnTerminal) {
  for (const char* sub : {"", "list", "platform", "summary", "import-epcc"}) {
    std::vector<std::string> args;
    if (*sub != '\0') args.push_back(sub);
    args.push_back("--help");
    const Outcome help = run(args);
    ASSERT_EQ(help.status, 0) << sub << ": " << help.err;
    std::istringstream lines(help.out);
    for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 100u) << line;
  }
}

TEST_F(OmpbenchCli, ForeignOutputFileIsRefusedAndKept) {
  test_support::spit(path("mine.csv"), "x,y\n1,2\n");
  const Outcome out =
      run({"--construct", "barrier", "--threads", "1", "--reps", "2", "-o", path("mine.csv")});
  EXPECT_EQ(out.status, 2);
  EXPECT_THAT(out.err, HasSubstr(path("mine.csv") + ":1:"));
  EXPECT_EQ(slurp(path("mine.csv")), "x,y\n1,2\n");
  EXPECT_FALSE(fs::exists(path("mine.csv.meta.json")));
}

TEST_F(OmpbenchCli, BarrierSweepWritesValidRowsSidecarAndResumes) {
  // A busy other core puts batches into slow phases: a larger re-measurement budget lets the
  // run complete there too (what is checked is the rows, the sidecar and the resume).
  const std::vector<std::string> args = {"--construct",     "barrier", "--threads", "1,2",
                                         "--reps",          "12",      "--batch",   "5",
                                         "--max-remeasure", "40",      "-o",        path("r.csv")};
  const Outcome out = run(args);
  ASSERT_EQ(out.status, 0) << out.err;
  const auto rows = read_rows(slurp(path("r.csv")));
  std::map<std::string, int> valid;  // runtime/threads -> valid avg_cost values
  std::set<std::string> metrics;
  for (const auto& row : rows) {
    EXPECT_EQ(row.at("construct"), "barrier");
    EXPECT_EQ(row.at("method"), "direct");
    EXPECT_EQ(row.at("bind"), "spread");
    EXPECT_EQ(row.at("places"), "cores");
    EXPECT_EQ(row.at("unit"), "us");
    EXPECT_EQ(row.at("oversubscribed"), "0");
    EXPECT_EQ(row.at("thread_class"), "PO2");
    metrics.insert(row.at("metric"));
    if (row.at("metric") == "avg_cost" && row.at("valid") == "1")
      ++valid[row.at("runtime") + "/" + row.at("threads")];
  }
  EXPECT_EQ(metrics, (std::set<std::string>{"min_cost", "avg_cost", "max_cost", "release_skew"}));
  std::vector<std::string> runtimes = {"libgomp"};
  if (llvm_worker_built()) runtimes.push_back("libomp");
  for (const std::string& runtime : runtimes)
    for (const char* t : {"1", "2"}) EXPECT_GE(valid[runtime + "/" + t], 12) << runtime << " " << t;

  const nlohmann::json meta = nlohmann::json::parse(slurp(path("r.csv.meta.json")));
  ASSERT_EQ(meta["runs"].size(), 1u);
  const nlohmann::json& run0 = meta["runs"][0];
  EXPECT_EQ(run0["status"], "complete");
  EXPECT_TRUE(run0["workers"].contains("gnu"));
  EXPECT_EQ(run0["workers"]["gnu"]["runtime"], "libgomp");
  EXPECT_FALSE(run0["workers"]["gnu"]["clock"]["source"].get<std::string>().empty());
  EXPECT_GT(run0["workers"]["gnu"]["clock"]["ticks_per_second"].get<double>(), 0);
  EXPECT_FALSE(run0["calibrations"].empty());
  EXPECT_FALSE(run0["noise"]["canary_ns"].empty());

  // The same command again: everything is complete, nothing is measured or written.
  const std::string before = slurp(path("r.csv"));
  const Outcome again = run(args);
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(slurp(path("r.csv")), before);
  EXPECT_THAT(again.err, HasSubstr("resuming"));

  // More repetitions: only the missing values are measured, numbered after the existing ones.
  std::vector<std::string> more = args;
  more[5] = "15";
  const Outcome extended = run(more);
  ASSERT_EQ(extended.status, 0) << extended.err;
  const auto all = read_rows(slurp(path("r.csv")));
  std::map<std::string, std::set<std::string>> reps;
  std::map<std::string, int> valid_after;
  for (const auto& row : all)
    if (row.at("metric") == "avg_cost") {
      const std::string key = row.at("runtime") + "/" + row.at("threads");
      EXPECT_TRUE(reps[key].insert(row.at("rep")).second) << "rep " << row.at("rep") << " twice";
      if (row.at("valid") == "1") ++valid_after[key];
    }
  for (const auto& [key, count] : valid_after) EXPECT_GE(count, 15) << key;
  EXPECT_EQ(nlohmann::json::parse(slurp(path("r.csv.meta.json")))["runs"].size(), 3u);
}

TEST_F(OmpbenchCli, StdoutFeedsTheModeler) {
  const Outcome bench =
      run({"--construct", "barrier", "--threads", "1,2", "--reps", "10", "--runtime", "gnu"});
  ASSERT_EQ(bench.status, 0) << bench.err;
  EXPECT_EQ(bench.out.rfind(results_header(), 0), 0u);
  test_support::spit(path("piped.csv"), bench.out);
  const Outcome fit =
      test_support::run_program({OMPSCALE_MODELER_BIN, "fit", "-"}, dir_, path("piped.csv"));
  ASSERT_EQ(fit.status, 0) << fit.err;
  EXPECT_THAT(fit.out, HasSubstr("barrier"));
  EXPECT_THAT(fit.out, HasSubstr("avg_cost"));
}

TEST_F(OmpbenchCli, OversubscribedRowsAreMarked) {
  const int hardware = static_cast<int>(std::thread::hardware_concurrency());
  const std::string over = std::to_string(hardware + 1);
  const Outcome refused = run({"--construct", "barrier", "--threads", over, "--runtime", "gnu"});
  EXPECT_EQ(refused.status, 2);
  EXPECT_THAT(refused.err, HasSubstr("--oversubscribe"));
  const Outcome out = run({"--construct", "barrier", "--threads", "1," + over, "--reps", "3",
                           "--runtime", "gnu", "--oversubscribe", "-o", path("o.csv")});
  ASSERT_EQ(out.status, 0) << out.err;
  EXPECT_THAT(out.err, HasSubstr("oversubscribed"));
  for (const auto& row : read_rows(slurp(path("o.csv"))))
    EXPECT_EQ(row.at("oversubscribed"), row.at("threads") == over ? "1" : "0");
  const nlohmann::json meta = nlohmann::json::parse(slurp(path("o.csv.meta.json")));
  EXPECT_TRUE(meta["runs"][0]["oversubscribed"].get<bool>());
}

// --runtime-lib: the worker of that runtime loads the given build (here a copy of the installed
// one, as a freshly built runtime would be) and the sidecar names it.
TEST_F(OmpbenchCli, RuntimeLibMeasuresThatBuild) {
  const Outcome installed =
      run({"--construct", "barrier", "--reps", "3", "--runtime", "gnu", "-o", path("i.csv")});
  ASSERT_EQ(installed.status, 0) << installed.err;
  const std::string library =
      nlohmann::json::parse(slurp(path("i.csv.meta.json")))["runs"][0]["workers"]["gnu"]["library"];
  fs::create_directories(dir_ / "fresh");
  const std::string fresh = path("fresh/libgomp.so.1");
  fs::copy_file(library, fresh);
  const Outcome out = run({"--construct", "barrier", "--reps", "3", "--runtime", "gnu",
                           "--runtime-lib", fresh, "-o", path("f.csv")});
  ASSERT_EQ(out.status, 0) << out.err;
  const nlohmann::json meta = nlohmann::json::parse(slurp(path("f.csv.meta.json")));
  EXPECT_EQ(meta["runs"][0]["workers"]["gnu"]["library"], fresh);
  EXPECT_FALSE(read_rows(slurp(path("f.csv"))).empty());
  if (llvm_worker_built()) {
    fs::copy_file("/usr/lib/llvm-14/lib/libomp.so.5", path("fresh/build.so"));
    const Outcome llvm =
        run({"--construct", "barrier", "--reps", "3", "--runtime", "llvm", "--runtime-lib",
             "llvm=" + path("fresh/build.so"), "-o", path("l.csv")});
    ASSERT_EQ(llvm.status, 0) << llvm.err;
    EXPECT_EQ(nlohmann::json::parse(
                  slurp(path("l.csv.meta.json")))["runs"][0]["workers"]["llvm"]["library"],
              path("fresh/build.so"));
  }
  const Outcome missing = run({"--construct", "barrier", "--runtime-lib", path("none/libomp.so")});
  EXPECT_EQ(missing.status, 2);
  EXPECT_THAT(missing.err, HasSubstr("no such library file"));
  const Outcome unnamed = run({"--construct", "barrier", "--runtime-lib", path("i.csv")});
  EXPECT_EQ(unnamed.status, 2);
  EXPECT_THAT(unnamed.err, HasSubstr("gnu=PATH or llvm=PATH"));
}

// The interrupt test: SIGINT while a sweep runs leaves a valid file with only whole batches, exit
// status 130 and the resume command; running that command completes the sweep.
TEST_F(OmpbenchCli, SigintKeepsWholeBatchesAndResumes) {
  const std::vector<std::string> args = {OMPSCALE_OMPBENCH_BIN,
                                         "--construct",
                                         "barrier,single,critical",
                                         "--threads",
                                         "1,2",
                                         "--reps",
                                         "40",
                                         "--batch",
                                         "4",
                                         "--method",
                                         "both",
                                         "--runtime",
                                         "gnu",
                                         "-o",
                                         path("i.csv"),
                                         "--canary",  // this test is about interrupts, not noise
                                         "0",
                                         "--max-remeasure",
                                         "40"};
  {
    test_support::ChildProcess child(args, "/dev/null", path("i.out"), path("i.err"));
    // Wait until some batches are in the file, then interrupt.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      if (fs::exists(path("i.csv")) && read_rows(slurp(path("i.csv"))).size() >= 20) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    child.signal(SIGINT);
    EXPECT_EQ(child.wait(), 130) << slurp(path("i.err"));
  }
  const std::string err = slurp(path("i.err"));
  EXPECT_THAT(err, HasSubstr("interrupted"));
  EXPECT_THAT(err, HasSubstr("resume with: "));
  const std::string text = slurp(path("i.csv"));
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  const auto rows = read_rows(text);
  // Whole batches: per configuration, every repetition has all of its metrics.
  std::map<std::string, std::map<std::string, int>> metrics_per_rep;
  for (const auto& row : rows)
    ++metrics_per_rep[row.at("construct") + row.at("method") + row.at("threads")][row.at("rep")];
  for (const auto& [config, reps] : metrics_per_rep) {
    const int first = reps.begin()->second;
    for (const auto& [rep, count] : reps) EXPECT_EQ(count, first) << config << " rep " << rep;
  }
  const nlohmann::json meta = nlohmann::json::parse(slurp(path("i.csv.meta.json")));
  EXPECT_EQ(meta["runs"][0]["status"], "interrupted");

  // Resume with the same arguments: completes, and keeps every row that was there.
  std::vector<std::string> resume(args.begin() + 1, args.end());
  const Outcome resumed = run(resume);
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  const std::string completed = slurp(path("i.csv"));
  EXPECT_EQ(completed.rfind(text, 0), 0u) << "resume changed existing rows";
  std::map<std::string, int> valid;
  for (const auto& row : read_rows(completed))
    if (row.at("valid") == "1" &&
        (row.at("metric") == "avg_cost" || row.at("metric") == "overhead"))
      ++valid[row.at("construct") + "/" + row.at("method") + "/" + row.at("threads")];
  EXPECT_EQ(valid.size(), 3u * 2 * 2);
  for (const auto& [config, count] : valid) EXPECT_GE(count, 40) << config << "\n" << resumed.err;
}

TEST_F(OmpbenchCli, ConcurrentRunsTakeTurnsThroughTheMachineLock) {
  // Two runs started together share one canary store, so one machine lock: each waits while the
  // other measures, and both finish whole. A loaded machine (the sanitizer suite at -j2) flags
  // many values invalid, so the runs get room to remeasure: "incomplete" would be the noise, not
  // the lock.
  std::vector<std::unique_ptr<test_support::ChildProcess>> children;
  for (const char* name : {"a", "b"}) {
    children.push_back(std::make_unique<test_support::ChildProcess>(
        std::vector<std::string>{OMPSCALE_OMPBENCH_BIN, "--construct", "barrier", "--threads",
                                 "1,2", "--runtime", "gnu", "--reps", "30", "--max-remeasure", "20",
                                 "--canary-store", path("store.json"), "-o",
                                 path(std::string(name) + ".csv")},
        "/dev/null", path(std::string(name) + ".out"), path(std::string(name) + ".err")));
  }
  for (auto& child : children) EXPECT_EQ(child->wait(), 0);
  EXPECT_TRUE(fs::exists(path("store.json." + host_name() + ".lock")));
  double waited = 0;
  for (const char* name : {"a", "b"}) {
    const nlohmann::json meta =
        nlohmann::json::parse(slurp(path(std::string(name) + ".csv.meta.json")));
    EXPECT_EQ(meta["runs"][0]["status"], "complete") << slurp(path(std::string(name) + ".err"));
    waited += meta["runs"][0]["noise"]["machine_lock_waited_seconds"].get<double>();
  }
  EXPECT_GT(waited, 0.0);
}

// Two runs started in the same second (a Slurm array's tasks on one node, a nightly measuring two
// builds) named themselves by that second and collided in the history; each now has its own id.
TEST_F(OmpbenchCli, RunsStartedInTheSameSecondHaveTheirOwnIds) {
  for (int attempt = 0; attempt < 5; ++attempt) {
    std::vector<std::unique_ptr<test_support::ChildProcess>> children;
    for (const char* name : {"a", "b"}) {
      fs::remove(path(std::string(name) + ".csv"));
      fs::remove(path(std::string(name) + ".csv.meta.json"));
      children.push_back(std::make_unique<test_support::ChildProcess>(
          std::vector<std::string>{OMPSCALE_OMPBENCH_BIN, "--construct", "barrier", "--threads",
                                   "1", "--runtime", "gnu", "--reps", "10", "-o",
                                   path(std::string(name) + ".csv")},
          "/dev/null", path(std::string(name) + ".out"), path(std::string(name) + ".err")));
    }
    for (auto& child : children) ASSERT_EQ(child->wait(), 0);
    std::vector<nlohmann::json> runs;
    for (const char* name : {"a", "b"}) {
      runs.push_back(
          nlohmann::json::parse(slurp(path(std::string(name) + ".csv.meta.json")))["runs"][0]);
    }
    if (runs[0]["started"] != runs[1]["started"]) continue;  // a second boundary between them
    EXPECT_NE(runs[0]["run_id"], runs[1]["run_id"]);
    EXPECT_THAT(runs[0]["run_id"].get<std::string>(),
                ::testing::MatchesRegex("r[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}"));
    return;
  }
  FAIL() << "no two runs started in the same second in five attempts";
}

// A machine faster than its stored typical state is that state changing (a new machine, a quieter
// host): the run measures at once and says so, where it waited --max-wait for the machine to get
// slower and called the run an unusual phase.
TEST_F(OmpbenchCli, AFasterMachineIsMeasuredAtOnce) {
  const std::string store = path("store.json");
  ASSERT_EQ(run({"--construct", "barrier", "--threads", "1", "--runtime", "gnu", "--reps", "5",
                 "--canary-store", store, "-o", path("first.csv")})
                .status,
            0);
  // Three earlier runs of this machine, each 10 ms per round trip: far slower than now.
  nlohmann::json runs = nlohmann::json::parse(slurp(store));
  ASSERT_EQ(runs.size(), 1u);
  nlohmann::json& machine = runs.begin().value();
  machine = nlohmann::json::array();
  for (int i = 0; i < 3; ++i)
    machine.push_back({{"time", "2026-11-01T00:00:00Z"}, {"round_trip_ns", 1e7}});
  std::ofstream(store) << runs.dump();
  const auto start = std::chrono::steady_clock::now();
  const Outcome out =
      run({"--construct", "barrier", "--threads", "1", "--runtime", "gnu", "--reps", "5",
           "--canary-store", store, "--max-wait", "60", "-o", path("faster.csv")});
  ASSERT_EQ(out.status, 0) << out.err;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30)) << out.err;
  const nlohmann::json record =
      nlohmann::json::parse(slurp(path("faster.csv.meta.json")))["runs"][0];
  EXPECT_EQ(record["noise"]["waited_seconds"], 0.0);
  EXPECT_THAT(record["warnings"].dump(), HasSubstr("measured in a faster state"));
  EXPECT_THAT(record["warnings"].dump(), ::testing::Not(HasSubstr("unusual phase")));
}

// Every construct of the catalogue, with every method it claims, at 1 and 2 threads, on both
// runtimes: each configuration yields valid values or is reported unavailable with a reason.
TEST_F(OmpbenchCli, EveryConstructRunsAtOneAndTwoThreadsOnEveryRuntime) {
  const Outcome out =
      run({"--suite", "all", "--method", "both", "--threads", "1,2", "--reps", "3", "--batch", "3",
           "--epcc-test-time", "100", "--max-remeasure", "2", "-o", path("all.csv")});
  ASSERT_EQ(out.status, 0) << out.err;
  // A configuration ran when it produced values; on a loaded machine many of them are flagged
  // valid=0 (CPU waits, missed windows), which is the method working, not failing.
  std::set<std::string> measured;
  for (const auto& row : read_rows(slurp(path("all.csv"))))
    measured.insert(row.at("construct") + "/" + row.at("method") + "/" + row.at("runtime") + "/" +
                    row.at("threads"));
  const nlohmann::json meta = nlohmann::json::parse(slurp(path("all.csv.meta.json")));
  const std::string unavailable = meta["runs"][0]["unavailable"].dump();
  std::vector<std::string> runtimes = {"libgomp"};
  if (llvm_worker_built()) runtimes.push_back("libomp");
  for (const ConstructInfo& c : catalogue())
    for (Method m : {Method::kDirect, Method::kEpcc}) {
      if ((m == Method::kDirect && !c.direct) || (m == Method::kEpcc && !c.epcc)) continue;
      for (const std::string& runtime : runtimes)
        for (const char* t : {"1", "2"}) {
          const std::string key =
              std::string(c.name) + "/" + to_string(m) + "/" + runtime + "/" + t;
          const bool skipped = unavailable.find(std::string(c.name) + " (" + to_string(m) +
                                                " method) on " + runtime) != std::string::npos;
          EXPECT_TRUE(measured.count(key) == 1 || skipped) << key;
          // Only the lock hints may be missing, and only where the runtime lacks them.
          if (skipped) {
            EXPECT_EQ(runtime, "libgomp") << key << " skipped on libomp";
            EXPECT_EQ(std::string(c.name).rfind("lock_hint", 0), 0u) << key << " skipped";
          }
        }
    }
}

TEST_F(OmpbenchCli, ImportEpccWritesRowsTheModelerReads) {
  const std::string fixture = std::string(OMPSCALE_TEST_DATA) + "/epcc";
  std::vector<std::string> args = {"import-epcc", "-o", path("epcc.csv"), "--runtime", "libgomp"};
  for (const auto& entry : fs::directory_iterator(fixture))
    if (entry.path().filename().string().rfind("syncbench_v4_2", 0) == 0 ||
        entry.path().filename().string().rfind("schedbench_v4_2", 0) == 0)
      args.push_back(entry.path().string());
  ASSERT_GT(args.size(), 5u) << "no syncbench fixture in " << fixture;
  const Outcome out = run(args);
  ASSERT_EQ(out.status, 0) << out.err;
  const auto rows = read_rows(slurp(path("epcc.csv")));
  ASSERT_FALSE(rows.empty());
  for (const auto& row : rows) EXPECT_EQ(row.at("method"), "epcc");
  const Outcome fit =
      test_support::run_program({OMPSCALE_MODELER_BIN, "fit", path("epcc.csv")}, dir_);
  EXPECT_EQ(fit.status, 0) << fit.err;

  // The same run imported twice: only the chosen metric, repetitions numbered across files.
  const std::string sync = fixture + "/syncbench_v4_2threads.txt";
  const Outcome twice = run({"import-epcc", "--metric", "overhead", sync, sync});
  ASSERT_EQ(twice.status, 0) << twice.err;
  std::set<std::string> parallel_reps;
  for (const auto& row : read_rows(twice.out)) {
    EXPECT_EQ(row.at("metric"), "overhead");
    if (row.at("construct") == "parallel") parallel_reps.insert(row.at("rep"));
  }
  EXPECT_EQ(parallel_reps, (std::set<std::string>{"0", "1"}));

  const Outcome missing = run({"import-epcc", path("nope.txt")});
  EXPECT_EQ(missing.status, 2);
  EXPECT_THAT(missing.err, HasSubstr("nope.txt"));
}

}  // namespace
}  // namespace ompscale::microbench

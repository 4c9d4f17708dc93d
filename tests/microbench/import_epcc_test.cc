#include "microbench/driver/import_epcc.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/csv.h"
#include "common/error.h"
#include "microbench/catalogue.h"
#include "microbench/result_row.h"

namespace ompscale::microbench {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

const std::string kData = std::string(OMPSCALE_TEST_DATA) + "/epcc/";

std::string fixture(const std::string& name) {
  std::ifstream in(kData + name, std::ios::binary);
  EXPECT_TRUE(in) << "cannot open " << kData + name;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

EpccImport import(const std::string& text, EpccImportOptions options = {}) {
  return import_epcc(text, "in.txt", options);
}

EpccImport import_fixture(const std::string& name, EpccImportOptions options = {}) {
  return import_epcc(fixture(name), name, options);
}

// The InputError `text` raises: its line and message; fails the test when it raises none.
struct Raised {
  std::size_t line = 0;
  std::string message;
};
Raised input_error(const std::string& text, EpccImportOptions options = {}) {
  try {
    import(text, options);
  } catch (const InputError& e) {
    return {e.line(), e.what()};
  }
  ADD_FAILURE() << "no InputError";
  return {};
}

const ResultRow* find_row(const EpccImport& import, const std::string& construct,
                          const std::string& metric, const std::string& param_value = "",
                          int rep = 0) {
  for (const ResultRow& row : import.rows) {
    if (row.construct == construct && row.metric == metric && row.param_value == param_value &&
        row.rep == rep)
      return &row;
  }
  return nullptr;
}

double value(const EpccImport& import, const std::string& construct, const std::string& metric,
             const std::string& param_value = "", int rep = 0) {
  const ResultRow* row = find_row(import, construct, metric, param_value, rep);
  EXPECT_NE(row, nullptr) << construct << " " << metric << " " << param_value << " rep " << rep;
  return row ? row->value : std::nan("");
}

// Constructs in order of first appearance.
std::vector<std::string> constructs(const EpccImport& import) {
  std::vector<std::string> out;
  for (const ResultRow& row : import.rows)
    if (out.empty() || out.back() != row.construct) out.push_back(row.construct);
  return out;
}

// `text` with every `from` replaced by `to`.
std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

// `text` with the first `from` replaced by `to`; fails the test when there is none.
std::string replace(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// A small 4.0 run: header, one reference and one test block.
const std::string kSmallV4 =
    "Running OpenMP benchmark version 4.0\n"
    "\t8 thread(s)\n"
    "\t20 outer repetitions\n"
    "\t1000.00 test time (microseconds)\n"
    "\t27 delay length (iterations) \n"
    "\t0.100000 delay time (microseconds)\n"
    "\n"
    "--------------------------------------------------------\n"
    "Computing reference time 1 time using 20480 reps\n"  // line 9
    "\n"
    "Sample_size       Mean       Median     Min        Max        StdDev     Outliers\n"
    " 20               0.102521   0.102420   0.101783   0.105715   0.000821   1\n"
    "reference time 1 mean time    = 0.102521 microseconds +/- 0.001609\n"
    "reference time 1 median time  = 0.102420 microseconds\n"
    "\n"
    "--------------------------------------------------------\n"
    "Computing BARRIER time using 10240 reps\n"  // line 17
    "\n"
    "Sample_size       Mean       Median     Min        Max        StdDev     Outliers\n"
    " 20               0.255449   0.253656   0.248017   0.267102   0.005221   0\n"  // line 20
    "BARRIER time         = 0.255449 microseconds +/- 0.010233\n"
    "BARRIER overhead     = 0.152928 microseconds +/- 0.011842\n"  // line 22
    "BARRIER median_ovrhd = 0.151236 microseconds \n";

// ---------------------------------------------------------------------------------------------
// The four programs

TEST(ImportEpcc, SyncbenchV4MapsEveryBlockAndKeepsItsStatistics) {
  const EpccImport result = import_fixture("syncbench_v4_2threads.txt");
  EXPECT_THAT(result.warnings, IsEmpty());
  // 15 tests x 7 metrics + 3 references x 5 metrics.
  EXPECT_THAT(result.rows, SizeIs(15 * 7 + 3 * 5));
  EXPECT_THAT(
      constructs(result),
      ElementsAre("epcc_reference", "parallel", "for", "parallel_for", "barrier", "barrier_var",
                  "single", "critical", "lock_contended", "lock_hint_contended", "lock_uncontended",
                  "lock_hint_uncontended", "ordered", "epcc_reference", "atomic_update",
                  "atomic_seq_cst", "epcc_reference", "reduction"));
  for (const ResultRow& row : result.rows) {
    EXPECT_EQ(row.threads, 2);
    EXPECT_EQ(row.method, "epcc");
    EXPECT_EQ(row.unit, "us");
    EXPECT_EQ(row.rep, 0);
  }
  // The values as printed in the fixture.
  EXPECT_DOUBLE_EQ(value(result, "parallel", "overhead"), 0.325204);
  EXPECT_DOUBLE_EQ(value(result, "parallel", "overhead_median"), 0.323256);
  EXPECT_DOUBLE_EQ(value(result, "parallel", "time_mean"), 0.427725);
  EXPECT_DOUBLE_EQ(value(result, "parallel", "time_median"), 0.425676);
  EXPECT_DOUBLE_EQ(value(result, "parallel", "time_min"), 0.406482);
  EXPECT_DOUBLE_EQ(value(result, "parallel", "time_max"), 0.444231);
  EXPECT_DOUBLE_EQ(value(result, "parallel", "time_sd"), 0.010118);
  EXPECT_DOUBLE_EQ(value(result, "for", "overhead"), 0.381903);
  // The reference blocks, named after the suite their tests belong to.
  EXPECT_DOUBLE_EQ(value(result, "epcc_reference", "time_mean", "sync-1"), 0.102521);
  EXPECT_DOUBLE_EQ(value(result, "epcc_reference", "time_median", "sync-1"), 0.102420);
  EXPECT_NE(find_row(result, "epcc_reference", "time_sd", "sync-2"), nullptr);
  EXPECT_NE(find_row(result, "epcc_reference", "time_max", "sync-3"), nullptr);
  EXPECT_EQ(find_row(result, "epcc_reference", "overhead", "sync-1"), nullptr);
  EXPECT_EQ(find_row(result, "epcc_reference", "time_mean", "sync-1")->param, "reference");
}

TEST(ImportEpcc, SyncbenchV3HasNoMedians) {
  const EpccImport result = import_fixture("syncbench_v3_4threads.txt");
  EXPECT_THAT(result.warnings, IsEmpty());
  // 10 tests x 5 metrics + 3 references x 4 metrics.
  EXPECT_THAT(result.rows, SizeIs(10 * 5 + 3 * 4));
  EXPECT_THAT(constructs(result),
              ElementsAre("epcc_reference", "parallel", "for", "parallel_for", "barrier", "single",
                          "critical", "lock_contended", "ordered", "epcc_reference",
                          "atomic_update", "epcc_reference", "reduction"));
  for (const ResultRow& row : result.rows) {
    EXPECT_EQ(row.threads, 4);
    EXPECT_NE(row.metric, "overhead_median");
    EXPECT_NE(row.metric, "time_median");
  }
  EXPECT_DOUBLE_EQ(value(result, "parallel", "overhead"), 0.509713);
  EXPECT_DOUBLE_EQ(value(result, "parallel", "time_mean"), 0.612178);
  EXPECT_DOUBLE_EQ(value(result, "parallel", "time_sd"), 0.015533);
  EXPECT_DOUBLE_EQ(value(result, "epcc_reference", "time_mean", "sync-1"), 0.102465);
}

TEST(ImportEpcc, SchedbenchChunkSizesBecomeTheChunkParameter) {
  const EpccImport result = import_fixture("schedbench_v4_2threads.txt");
  // STATIC, STATIC_MONOTONIC, 4 x 11 chunk sizes up to 1024, 3 x 10 up to 512 (1024 / 2 threads).
  const std::size_t tests = 2 + 4 * 11 + 3 * 10;
  EXPECT_THAT(result.rows, SizeIs(tests * 7 + 5));
  const ResultRow* plain = find_row(result, "for_static", "overhead");
  ASSERT_NE(plain, nullptr);
  EXPECT_EQ(plain->param, "");
  const ResultRow* chunked = find_row(result, "for_static", "overhead", "16");
  ASSERT_NE(chunked, nullptr);
  EXPECT_EQ(chunked->param, "chunk");
  EXPECT_NE(find_row(result, "static_monotonic", "overhead"), nullptr);
  EXPECT_NE(find_row(result, "static_monotonic", "overhead", "1024"), nullptr);
  EXPECT_NE(find_row(result, "for_dynamic_nonmonotonic", "overhead", "1"), nullptr);
  EXPECT_NE(find_row(result, "for_dynamic_monotonic", "overhead", "1024"), nullptr);
  EXPECT_NE(find_row(result, "for_guided_nonmonotonic", "overhead", "512"), nullptr);
  EXPECT_EQ(find_row(result, "for_guided_nonmonotonic", "overhead", "1024"), nullptr);
  EXPECT_NE(find_row(result, "for_guided_monotonic", "time_sd", "8"), nullptr);
  EXPECT_NE(find_row(result, "taskloop", "overhead", "64"), nullptr);
  // schedbench's lone "reference time" is reference 1.
  EXPECT_NE(find_row(result, "epcc_reference", "time_mean", "sched-1"), nullptr);
  // 4.0 runs loops of 1024 iterations per thread, ompbench 128: said once, at the header line.
  ASSERT_THAT(result.warnings, SizeIs(1));
  EXPECT_THAT(result.warnings[0],
              AllOf(HasSubstr("schedbench_v4_2threads.txt:7:"), HasSubstr("1024 iterations")));
}

// A loop length past int's range is not cut to one (2^32 + 128 would read as ompbench's 128 and
// hide the warning).
TEST(ImportEpcc, LoopLengthPastIntRangeIsWarnedAboutAsPrinted) {
  std::string text = fixture("schedbench_v4_2threads.txt");
  const std::string printed = "\t1024 iterations per thread";
  ASSERT_NE(text.find(printed), std::string::npos);
  text.replace(text.find(printed), printed.size(), "\t4294967424 iterations per thread");
  const EpccImport result = import(text);
  ASSERT_THAT(result.warnings, SizeIs(1));
  EXPECT_THAT(result.warnings[0], HasSubstr("4294967424 iterations"));
}

TEST(ImportEpcc, TaskbenchSkipsItsDebugLinesAndNumbersRepeatedBlocks) {
  const EpccImport result = import_fixture("taskbench_v4_2threads.txt");
  EXPECT_THAT(result.warnings, IsEmpty());
  // 13 tests (MASTER TASK twice) x 7 + 2 references x 5.
  EXPECT_THAT(result.rows, SizeIs(13 * 7 + 2 * 5));
  EXPECT_THAT(constructs(result),
              ElementsAre("epcc_reference", "task_all", "parallel_task_deps", "master_task_deps",
                          "task_single", "master_task_busy_slaves", "conditional_task",
                          "task_single", "taskwait", "task_barrier", "task_nested",
                          "nested_master_task", "epcc_reference", "branch_task_tree", "task_tree"));
  // taskbench.c measures MASTER TASK twice: two repetitions of one kernel.
  EXPECT_NE(find_row(result, "task_single", "overhead", "", 0), nullptr);
  EXPECT_NE(find_row(result, "task_single", "overhead", "", 1), nullptr);
  EXPECT_NE(find_row(result, "epcc_reference", "time_mean", "task-2"), nullptr);
}

TEST(ImportEpcc, ArraybenchArraySizeBecomesTheParameter) {
  const EpccImport result = import_fixture("arraybench_v4_729_2threads.txt");
  EXPECT_THAT(result.warnings, IsEmpty());
  EXPECT_THAT(result.rows, SizeIs(4 * 7 + 5));
  EXPECT_THAT(constructs(result), ElementsAre("epcc_reference", "private", "firstprivate_array",
                                              "copyprivate", "copyin"));
  for (const ResultRow& row : result.rows) {
    if (row.construct == "epcc_reference") {
      EXPECT_EQ(row.param_value, "data-1");
    } else {
      EXPECT_EQ(row.param, "array_size");
      EXPECT_EQ(row.param_value, "729");
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Rows

TEST(ImportEpcc, CopiesTheOptionsIntoEveryRow) {
  EpccImportOptions options;
  options.bind = "spread";
  options.places = "cores";
  options.runtime = "libgomp";
  options.runtime_version = "12.2.0";
  options.compiler = "gcc-12.2.0";
  options.platform = "epyc-vm";
  options.run_id = "epcc-2024";
  const EpccImport result = import(kSmallV4, options);
  ASSERT_THAT(result.rows, SizeIs(7 + 5));
  for (const ResultRow& row : result.rows) {
    EXPECT_EQ(row.bind, "spread");
    EXPECT_EQ(row.places, "cores");
    EXPECT_EQ(row.runtime, "libgomp");
    EXPECT_EQ(row.runtime_version, "12.2.0");
    EXPECT_EQ(row.compiler, "gcc-12.2.0");
    EXPECT_EQ(row.platform, "epyc-vm");
    EXPECT_EQ(row.run_id, "epcc-2024");
    EXPECT_EQ(row.threads, 8);
    EXPECT_EQ(row.thread_class, "");
    EXPECT_TRUE(row.valid);
    EXPECT_EQ(row.canary_ns, 0);
    EXPECT_EQ(row.timestamp, "");
    EXPECT_FALSE(row.oversubscribed);
  }
  // The reference is named after the suite of the tests that follow it.
  EXPECT_EQ(result.rows[0].param_value, "sync-1");
  EXPECT_EQ(result.rows[5].metric, "overhead");
  EXPECT_EQ(result.rows[5].construct, "barrier");
}

TEST(ImportEpcc, FormatsAsResultsCsvTheModelerReads) {
  const EpccImport result = import_fixture("syncbench_v4_2threads.txt");
  std::string csv = results_header();
  for (const ResultRow& row : result.rows) csv += format_row(row);
  const auto records = read_csv(csv, "results.csv");
  ASSERT_EQ(records.size(), result.rows.size() + 1);
  const std::vector<std::string>& header = records[0].fields;
  const auto column = [&](const std::string& name) {
    const auto it = std::find(header.begin(), header.end(), name);
    EXPECT_NE(it, header.end()) << name;
    return static_cast<std::size_t>(it - header.begin());
  };
  // What the modeler's ompbench reader requires: construct, threads > 0, a finite value, valid.
  const std::size_t threads = column("threads");
  const std::size_t value = column("value");
  const std::size_t valid = column("valid");
  const std::size_t construct = column("construct");
  for (std::size_t i = 1; i < records.size(); ++i) {
    const auto& fields = records[i].fields;
    ASSERT_EQ(fields.size(), header.size());
    EXPECT_EQ(fields[threads], "2");
    EXPECT_TRUE(std::isfinite(std::stod(fields[value])));
    EXPECT_EQ(fields[valid], "1");
    EXPECT_FALSE(fields[construct].empty());
  }
  // EPCC's %f digits survive: the parallel overhead.
  for (std::size_t i = 0; i < result.rows.size(); ++i) {
    if (result.rows[i].construct == "parallel" && result.rows[i].metric == "overhead") {
      EXPECT_EQ(records[i + 1].fields[value], "0.325204");
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Line ends, several runs, thread counts

TEST(ImportEpcc, ReadsCrlfLikeLf) {
  const std::string lf = fixture("syncbench_v4_2threads.txt");
  std::string crlf;
  for (char c : lf) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  const EpccImport a = import(lf);
  const EpccImport b = import(crlf);
  ASSERT_EQ(a.rows.size(), b.rows.size());
  for (std::size_t i = 0; i < a.rows.size(); ++i) {
    EXPECT_EQ(format_row(a.rows[i]), format_row(b.rows[i]));
  }
}

TEST(ImportEpcc, SeveralRunsInOneLogAreRepetitions) {
  const std::string sync = fixture("syncbench_v4_2threads.txt");
  const std::string array = fixture("arraybench_v4_729_2threads.txt");
  const EpccImport result = import(sync + array + sync);
  EXPECT_THAT(result.rows, SizeIs(2 * (15 * 7 + 3 * 5) + 4 * 7 + 5));
  EXPECT_NE(find_row(result, "parallel", "overhead", "", 1), nullptr);
  EXPECT_EQ(find_row(result, "parallel", "overhead", "", 2), nullptr);
  EXPECT_NE(find_row(result, "epcc_reference", "time_mean", "sync-1", 1), nullptr);
  // arraybench's reference 1 is another loop than syncbench's: not a repetition of it.
  EXPECT_NE(find_row(result, "epcc_reference", "time_mean", "data-1", 0), nullptr);
  EXPECT_EQ(find_row(result, "epcc_reference", "time_mean", "data-1", 1), nullptr);
}

TEST(ImportEpcc, ThreadCountsAreKeptApartForReps) {
  const std::string four = replace(kSmallV4, "\t8 thread(s)", "\t4 thread(s)");
  const EpccImport result = import(kSmallV4 + four);
  for (const ResultRow& row : result.rows) EXPECT_EQ(row.rep, 0);
}

TEST(ImportEpcc, HeaderWithoutBlocksBetweenRunsIsAWarning) {
  const std::string header = kSmallV4.substr(0, kSmallV4.find("\n\n---"));
  const EpccImport result = import(header + "\n" + kSmallV4);
  EXPECT_THAT(result.rows, SizeIs(12));
  ASSERT_THAT(result.warnings, SizeIs(1));
  EXPECT_THAT(result.warnings[0], AllOf(HasSubstr("in.txt:1:"), HasSubstr("without any")));
}

TEST(ImportEpcc, BlocksWithoutHeaderTakeTheGivenThreadCount) {
  const std::string blocks = kSmallV4.substr(kSmallV4.find("\n---"));
  EpccImportOptions options;
  options.threads = 16;
  const EpccImport result = import(blocks, options);
  ASSERT_THAT(result.rows, SizeIs(12));
  for (const ResultRow& row : result.rows) EXPECT_EQ(row.threads, 16);

  const Raised error = input_error(blocks);
  EXPECT_EQ(error.line, 3u);  // the first "Computing" line
  EXPECT_THAT(error.message, AllOf(HasSubstr("in.txt:3:"), HasSubstr("--threads")));
}

TEST(ImportEpcc, TheFilesThreadCountWinsOverTheOption) {
  EpccImportOptions options;
  options.threads = 4;
  const EpccImport result = import(kSmallV4, options);
  for (const ResultRow& row : result.rows) EXPECT_EQ(row.threads, 8);
  ASSERT_THAT(result.warnings, SizeIs(1));
  EXPECT_THAT(result.warnings[0], AllOf(HasSubstr("in.txt:2:"), HasSubstr("8 thread(s)")));
}

TEST(ImportEpcc, HeaderWithoutThreadsLineNeedsTheOption) {
  const std::string text = replace(kSmallV4, "\t8 thread(s)\n", "");
  EXPECT_THAT(input_error(text).message, AllOf(HasSubstr("in.txt:8:"), HasSubstr("--threads")));
  EpccImportOptions options;
  options.threads = 3;
  EXPECT_EQ(import(text, options).rows[0].threads, 3);
}

// ---------------------------------------------------------------------------------------------
// Names

TEST(ImportEpcc, UnknownBlocksAreKeptUnderTheirOwnNameWithAWarning) {
  const EpccImport result = import(replace_all(kSmallV4, "BARRIER", "TASK DEP 4"));
  EXPECT_NE(find_row(result, "task_dep_4", "overhead"), nullptr);
  ASSERT_THAT(result.warnings, SizeIs(1));
  EXPECT_THAT(result.warnings[0],
              AllOf(HasSubstr("in.txt:17:"), HasSubstr("TASK DEP 4"), HasSubstr("task_dep_4")));
  // Without a known test the reference has no suite to be named after.
  EXPECT_EQ(result.rows[0].param_value, "1");
}

TEST(ImportEpcc, MappedConstructsAreInTheCatalogueWithTheirParameter) {
  const std::vector<std::string> names = {"PARALLEL",
                                          "FOR",
                                          "PARALLEL FOR",
                                          "BARRIER",
                                          "SINGLE",
                                          "CRITICAL",
                                          "LOCK/UNLOCK",
                                          "LOCK_CONTENDED",
                                          "LOCK_CONTENDED_HINT",
                                          "LOCK_UNCONTENDED",
                                          "LOCK_UNCONTENDED_HINT",
                                          "ORDERED",
                                          "ATOMIC",
                                          "ATOMIC_SEQCST",
                                          "REDUCTION",
                                          "STATIC",
                                          "STATIC 4",
                                          "DYNAMIC 4",
                                          "DYNAMIC_MONOTONIC 4",
                                          "GUIDED 4",
                                          "GUIDED_MONOTONIC 4",
                                          "TASKLOOP 4",
                                          "PRIVATE 27",
                                          "FIRSTPRIVATE 27",
                                          "COPYPRIVATE 27",
                                          "COPYIN 27",
                                          "PARALLEL TASK",
                                          "MASTER TASK",
                                          "TASK WAIT",
                                          "TASK BARRIER",
                                          "NESTED TASK",
                                          "LEAF TASK TREE"};
  for (const std::string& name : names) {
    const EpccConstruct c = epcc_construct(name);
    EXPECT_TRUE(c.known) << name;
    ASSERT_TRUE(c.in_catalogue) << name;
    const ConstructInfo* info = find_construct(c.construct);
    ASSERT_NE(info, nullptr) << name << " -> " << c.construct;
    EXPECT_EQ(info->suite, c.suite) << name;
    if (name != "STATIC") {  // schedule(static) without a chunk: no parameter
      EXPECT_EQ(info->param, c.param) << name;
    }
  }
  EXPECT_EQ(epcc_construct("DYNAMIC 8").construct, "for_dynamic_nonmonotonic");
  EXPECT_EQ(epcc_construct("DYNAMIC 8").param_value, "8");
  EXPECT_EQ(epcc_construct("parallel_for").construct, "parallel_for");
  EXPECT_EQ(epcc_construct("LOCK/UNLOCK").construct, "lock_contended");
  EXPECT_EQ(epcc_construct("STATIC").param, "");
  EXPECT_FALSE(epcc_construct("BARRIER_VAR").in_catalogue);
  EXPECT_TRUE(epcc_construct("BARRIER_VAR").known);
  EXPECT_FALSE(epcc_construct("DYNAMIC").known);  // EPCC always prints the chunk size
  EXPECT_FALSE(epcc_construct("DYNAMIC 0").known);
  EXPECT_EQ(epcc_construct("Odd / Name").construct, "odd_name");
}

// ---------------------------------------------------------------------------------------------
// Errors

TEST(ImportEpcc, TruncatedBlockNamesItsComputingLine) {
  std::string message;
  std::size_t line = 0;
  try {
    import_fixture("syncbench_v4_truncated.txt");
  } catch (const InputError& e) {
    message = e.what();
    line = e.line();
  }
  EXPECT_EQ(line, 44u);
  EXPECT_THAT(message, AllOf(HasSubstr("syncbench_v4_truncated.txt:44:"), HasSubstr("\"BARRIER\""),
                             HasSubstr("BARRIER overhead"), HasSubstr("end of the input")));
}

TEST(ImportEpcc, BlockCutShortByTheNextOne) {
  // BARRIER loses its footers; the next run's header ends it.
  const std::string cut = kSmallV4.substr(0, kSmallV4.find("BARRIER time         ="));
  const Raised error = input_error(cut + kSmallV4);
  EXPECT_EQ(error.line, 17u);
  EXPECT_THAT(error.message, AllOf(HasSubstr("before line 21"), HasSubstr("BARRIER time")));
  // No statistics row at all.
  const Raised no_row = input_error(kSmallV4.substr(0, kSmallV4.find(" 20               0.255")));
  EXPECT_EQ(no_row.line, 17u);
  EXPECT_THAT(no_row.message, HasSubstr("statistics row"));
}

TEST(ImportEpcc, GarbledComputingLineIsAnError) {
  // Without its "Computing" line BARRIER's table would land in the reference block.
  const Raised error = input_error(replace(kSmallV4, "Computing BARRIER", "Compxting BARRIER"));
  EXPECT_EQ(error.line, 19u);
  EXPECT_THAT(error.message, HasSubstr("second statistics table"));
  // The same block's footer twice.
  const std::string twice = "reference time 1 median time  = 0.102420 microseconds\n";
  const Raised footer = input_error(replace(kSmallV4, twice, twice + twice));
  EXPECT_EQ(footer.line, 15u);
  EXPECT_THAT(footer.message, HasSubstr("second \"reference time 1 median time =\" line"));
}

TEST(ImportEpcc, NumbersThatDoNotParseNameTheirLine) {
  const Raised stats = input_error(replace(kSmallV4, "0.253656", "0.25x656"));
  EXPECT_EQ(stats.line, 20u);
  EXPECT_THAT(stats.message,
              AllOf(HasSubstr("in.txt:20:"), HasSubstr("statistics row"), HasSubstr("Median")));
  const Raised columns = input_error(replace(kSmallV4, "0.005221   0\n", "0.005221\n"));
  EXPECT_EQ(columns.line, 20u);
  const Raised footer = input_error(replace(kSmallV4, "= 0.152928", "= 0.15.2928"));
  EXPECT_EQ(footer.line, 22u);
  EXPECT_THAT(footer.message, HasSubstr("BARRIER overhead = X microseconds"));
  const Raised pm = input_error(replace(kSmallV4, "+/- 0.011842", "+/- abc"));
  EXPECT_EQ(pm.line, 22u);
  const Raised threads = input_error(replace(kSmallV4, "\t8 thread(s)", "\teight thread(s)"));
  EXPECT_EQ(threads.line, 2u);
  const Raised computing = input_error(replace(kSmallV4, "using 10240 reps", "using many reps"));
  EXPECT_EQ(computing.line, 17u);
  EXPECT_THAT(computing.message, HasSubstr("Computing NAME time using N reps"));
}

TEST(ImportEpcc, NanStatisticsAreSkippedWithAWarning) {
  // One outer repetition: EPCC divides by zero for the standard deviation.
  const EpccImport result = import(
      replace(replace(replace(kSmallV4, "0.005221   0", "-nan   0"), "+/- 0.010233", "+/- -nan"),
              "+/- 0.011842", "+/- nan"));
  EXPECT_EQ(find_row(result, "barrier", "time_sd"), nullptr);
  EXPECT_NE(find_row(result, "barrier", "time_mean"), nullptr);
  ASSERT_THAT(result.warnings, SizeIs(1));
  EXPECT_THAT(result.warnings[0], AllOf(HasSubstr("in.txt:20:"), HasSubstr("time_sd")));
}

TEST(ImportEpcc, InputThatIsNotEpccOutput) {
  const Raised text = input_error("construct,threads,value\nbarrier,2,0.3\n");
  EXPECT_EQ(text.line, 1u);
  EXPECT_THAT(text.message, HasSubstr("not EPCC micro-benchmark output"));
  const Raised empty = input_error("");
  EXPECT_EQ(empty.line, 0u);
  EXPECT_THAT(empty.message, HasSubstr("in.txt: not EPCC"));
  const Raised header_only = input_error(kSmallV4.substr(0, kSmallV4.find("\n\n---")));
  EXPECT_EQ(header_only.line, 1u);
  EXPECT_THAT(header_only.message, HasSubstr("no benchmark block"));
}

TEST(ImportEpcc, EpccsOwnStopIsAnError) {
  const std::string text = kSmallV4.substr(0, kSmallV4.find("\n\n---")) +
                           "\nCompiler has optimised reference loop away, STOP! \n"
                           "Try recompiling with lower optimisation level \n";
  const Raised error = input_error(text);
  EXPECT_EQ(error.line, 7u);
  EXPECT_THAT(error.message, HasSubstr("lower optimisation"));
}

TEST(ImportEpcc, SkipsAByteOrderMark) {
  EXPECT_THAT(import("\xEF\xBB\xBF" + kSmallV4).rows, SizeIs(12));
}

}  // namespace
}  // namespace ompscale::microbench

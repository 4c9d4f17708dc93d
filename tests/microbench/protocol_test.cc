// The driver-worker protocol: a job written by format_job reads back the same, numbers outside
// an int are refused (not wrapped), and worker records parse into their typed structs.

#include "microbench/protocol.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <variant>

namespace ompscale::microbench {
namespace {

Job two_batches() {
  Job job;
  job.canary_exchanges = 3;
  JobBatch barrier;
  barrier.id = 7;
  barrier.construct = "barrier";
  barrier.threads = 2;
  barrier.count = 5;
  barrier.first_rep = 10;
  job.batches.push_back(barrier);
  return job;
}

TEST(Protocol, AJobReadsBackAsItWasWritten) {
  Job read;
  std::string error;
  ASSERT_TRUE(parse_job(format_job(two_batches(), ""), read, error)) << error;
  EXPECT_EQ(read.canary_exchanges, 3);
  ASSERT_EQ(read.batches.size(), 1u);
  EXPECT_EQ(read.batches[0].id, 7);
  EXPECT_EQ(read.batches[0].construct, "barrier");
  EXPECT_EQ(read.batches[0].threads, 2);
  EXPECT_EQ(read.batches[0].count, 5);
  EXPECT_EQ(read.batches[0].first_rep, 10);
}

// 4294967297 is 2^32 + 1: cast to int it would be 1 and run a one-thread batch.
TEST(Protocol, JobNumbersBeyondAnIntAreRefusedNotWrapped) {
  const std::string batch_line = "batch 1 barrier direct ";
  struct Case {
    std::string line, cause;
  };
  const Case cases[] = {
      {batch_line + "4294967297 - 5 0", "threads must be >= 1"},
      {batch_line + "2 - 4294967297 0", "count must be >= 1"},
      {batch_line + "2 - 5 4294967296", "first rep must be >= 0"},
      {"batch 4294967297 barrier direct 2 - 5 0", "batch id must be an integer"},
      {"canary 4294967296", "canary needs a count >= 0"},
  };
  for (const Case& c : cases) {
    Job job;
    std::string error;
    EXPECT_FALSE(parse_job("clock monotonic_raw 0\n" + c.line + "\n", job, error)) << c.line;
    EXPECT_EQ(error, "line 2: " + c.cause) << c.line;
  }
}

TEST(Protocol, RecordsParseIntoTheirTypes) {
  const WorkerRecord sample = parse_record("sample\t7\tavg_cost\t3\t812.5\t1");
  ASSERT_TRUE(std::holds_alternative<SampleRecord>(sample));
  EXPECT_EQ(std::get<SampleRecord>(sample).batch, 7);
  EXPECT_EQ(std::get<SampleRecord>(sample).rep, 3);
  EXPECT_DOUBLE_EQ(std::get<SampleRecord>(sample).value_ns, 812.5);
  EXPECT_TRUE(std::get<SampleRecord>(sample).valid);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(parse_record("done")));
}

TEST(Protocol, ARecordWithABadNumberNamesTheRecordAndField) {
  try {
    parse_record("sample\t7\tavg_cost\t4294967296\t812.5\t1");
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("field 3 is not an integer"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ompscale::microbench

// Whether a run had its CPUs (regions/run/cpu_share.h): /proc/stat parsing and the rule.
#include <gtest/gtest.h>

#include "regions/run/cpu_share.h"

namespace ompscale::regions {
namespace {

constexpr char kStat[] =
    "cpu  300 10 60 9000 5 1 2 7 0 0\n"
    "cpu0 100 5 20 3000 1 1 1 3 0 0\n"
    "cpu1 100 5 20 3000 2 0 1 4 0 0\n"
    "cpu2 100 0 20 3000 2 0 0 0 0 0\n"
    "intr 12345\n";

TEST(RunCpuShare, ProcStatSumsBusyAndStealOfTheAllowedCpus) {
  const CpuTimes all = parse_proc_stat(kStat, {0, 1, 2});
  EXPECT_EQ(all.busy, 127u + 126u + 120u);  // user + nice + system + irq + softirq
  EXPECT_EQ(all.steal, 7u);
  const CpuTimes one = parse_proc_stat(kStat, {1});
  EXPECT_EQ(one.busy, 126u);
  EXPECT_EQ(one.steal, 4u);
  EXPECT_EQ(parse_proc_stat(kStat, {7}).busy, 0u);
  // The "cpu" line is the sum, not a CPU: its first field (300) is no CPU number.
  EXPECT_EQ(parse_proc_stat(kStat, {300}).busy, 0u);
  // Fields past the end or unreadable count 0; the others still add up.
  EXPECT_EQ(parse_proc_stat("cpu3 1 2 x\ncpu4 10\n", {3, 4}).busy, 13u);
}

// A run with fewer CPUs free than threads was time-shared.
TEST(RunCpuShare, FewerCpusThanThreadsIsTimeSharing) {
  EXPECT_TRUE(is_time_shared(2, 1, 1.0));   // the affinity mask allows one CPU
  EXPECT_TRUE(is_time_shared(2, 2, 0.66));  // others used 1.34 CPUs on average
  EXPECT_FALSE(is_time_shared(2, 2, 1.9));
  EXPECT_FALSE(is_time_shared(1, 2, 0.95));
  EXPECT_TRUE(is_time_shared(1, 2, 0.5));
}

}  // namespace
}  // namespace ompscale::regions

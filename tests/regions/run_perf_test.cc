#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <linux/perf_event.h>

#include <cerrno>
#include <memory>

#include "regions/run/launcher.h"
#include "regions/run/perf_counters.h"

namespace ompscale::regions {
namespace {

using ::testing::HasSubstr;

TEST(PerfReason, PermissionNamesTheParanoidLevel) {
  EXPECT_THAT(perf_unavailable_reason("cycles", EACCES, 3),
              HasSubstr("perf_event_paranoid is 3: this user may not count another process's "
                        "events (needs 2 or less, CAP_PERFMON or root)"));
  EXPECT_THAT(perf_unavailable_reason("cycles", EPERM, 4), HasSubstr("perf_event_paranoid is 4"));
  EXPECT_THAT(perf_unavailable_reason("cycles", EACCES, std::nullopt),
              HasSubstr("perf_event_open for cycles: Permission denied"));
}

TEST(PerfReason, MissingHardwareCountersAreNamed) {
  for (int error : {ENOENT, EOPNOTSUPP, ENODEV})
    EXPECT_THAT(perf_unavailable_reason("instructions", error, 2),
                HasSubstr("no instructions counter: the CPU or hypervisor exposes no hardware "
                          "performance counters"));
  EXPECT_THAT(perf_unavailable_reason("cycles", ENOSYS, std::nullopt),
              HasSubstr("no perf_event_open"));
  EXPECT_THAT(perf_unavailable_reason("cycles", EMFILE, 2),
              HasSubstr("perf_event_open for cycles: Too many open files"));
}

TEST(PerfParanoid, ReadsTheKernelSetting) {
  // Every kernel with perf events has the file; the value is whatever this machine says.
  const std::optional<int> level = perf_event_paranoid();
  ASSERT_TRUE(level.has_value());
  EXPECT_GE(*level, -1);
  EXPECT_LE(*level, 4);
}

// Runs `argv` through the launcher with `events` attached the way `ompscan run` attaches them.
struct CountedRun {
  std::unique_ptr<PerfCounters> counters;
  PerfCounters::Counts counts;
  LaunchResult result;
};

CountedRun run_counted(const std::vector<std::string>& argv, const std::vector<PerfEvent>& events) {
  CountedRun run;
  Launch launch;
  launch.executable = argv.front();
  launch.argv = argv;
  launch.env = {"PATH=/usr/bin:/bin"};
  LaunchHooks hooks;
  hooks.attach = [&](pid_t pid) { run.counters = std::make_unique<PerfCounters>(pid, events); };
  run.result = launch_and_wait(launch, hooks);
  if (run.counters->available()) run.counts = run.counters->read();
  return run;
}

TEST(PerfCounters, HardwareCountersAreCountedOrTheReasonIsGiven) {
  CountedRun run = run_counted({"/bin/true"}, hardware_events());
  ASSERT_EQ(run.result.end, LaunchResult::End::kExited);
  if (run.counters->available()) {
    EXPECT_GT(run.counts.values.at("cycles"), 0u);
    EXPECT_GT(run.counts.values.at("instructions"), 0u);
  } else {
    // Not permitted or not present here: the run file must say which.
    EXPECT_FALSE(run.counters->reason().empty());
    EXPECT_TRUE(run.counts.values.empty());
  }
}

// The mechanism (open before exec, enable on exec, inherit into children, read after reaping)
// checked with the task clock, a software counter that exists even where the CPU's do not: the
// shell forks a second shell that does the work, which only inheritance counts.
TEST(PerfCounters, CountsInheritedChildrenFromTheExecOn) {
  const PerfEvent task_clock{"task_clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK};
  CountedRun run = run_counted(
      {"/bin/sh", "-c", "/bin/sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done'; true"},
      {task_clock});
  ASSERT_TRUE(run.counters->available()) << run.counters->reason();
  ASSERT_EQ(run.result.end, LaunchResult::End::kExited);
  const std::uint64_t counted_ns = run.counts.values.at("task_clock");
  const std::int64_t cpu_ns = run.result.user_ns + run.result.system_ns;
  EXPECT_GT(counted_ns, 20'000'000u);  // the loop takes well over 20 ms of CPU
  // The counter and the kernel's own accounting of the process tree agree.
  EXPECT_NEAR(static_cast<double>(counted_ns), static_cast<double>(cpu_ns), 0.3 * cpu_ns + 5e6);
}

TEST(PerfCounters, AFailedOpenKeepsNoCounter) {
  // pid 0 is "this process" for perf; an impossible event type fails for everyone.
  PerfCounters counters(
      0, {{"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES}, {"bogus", 0xfffff, 0}});
  EXPECT_FALSE(counters.available());
  EXPECT_FALSE(counters.reason().empty());
  EXPECT_TRUE(counters.read().values.empty());
}

}  // namespace
}  // namespace ompscale::regions

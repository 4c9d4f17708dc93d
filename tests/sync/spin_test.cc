#include "sync/spin.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

#include "tests/sync/team.h"

namespace ompscale::sync {
namespace {

static_assert(sizeof(PaddedAtomic<std::uint64_t>) == kCacheLine);
static_assert(alignof(PaddedAtomic<std::uint32_t>) == kCacheLine);

TEST(Backoff, CountsEverySpin) {
  Backoff backoff(8);
  for (int i = 0; i < 200; ++i) backoff.spin();
  EXPECT_EQ(backoff.spins(), 200u);
}

TEST(Backoff, PassesTheCpuToAWriterOnTheSameCore) {
  // Both threads pinned to one CPU: every hand-off needs the waiter to give up the CPU. Without
  // the yields each hand-off would wait for the scheduler's time slice (milliseconds), so 200
  // hand-offs would take seconds; with them they take a few hundred microseconds each.
  cpu_set_t original;
  ASSERT_EQ(sched_getaffinity(0, sizeof(original), &original), 0);
  int cpu = 0;
  while (!CPU_ISSET(cpu, &original)) ++cpu;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);

  PaddedAtomic<std::uint64_t> ping, pong;
  constexpr std::uint64_t kHandOffs = 200;
  const auto start = std::chrono::steady_clock::now();
  testing::run_team(
      2,
      [&](int tid) {
        sched_setaffinity(0, sizeof(one), &one);
        for (std::uint64_t i = 1; i <= kHandOffs; ++i) {
          if (tid == 0) {
            ping.value.store(i, std::memory_order_release);
            spin_until_equal(pong.value, i);
          } else {
            spin_until_equal(ping.value, i);
            pong.value.store(i, std::memory_order_release);
          }
        }
      },
      /*bound=*/false);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(pong.value.load(), kHandOffs);
  EXPECT_LT(seconds, 1.0);
}

}  // namespace
}  // namespace ompscale::sync

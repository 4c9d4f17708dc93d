// MachineLock: one measurement at a time per machine (flock), interruptible waits.
#include "microbench/driver/machine_lock.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "common/interrupt.h"

namespace ompscale::microbench {
namespace {

namespace fs = std::filesystem;

fs::path lock_path(const char* name) {
  return fs::temp_directory_path() / ("ompbench-lock-" + std::to_string(getpid()) + "-" + name) /
         "canaries.json.lock";
}

TEST(MachineLock, SecondHolderWaitsForTheFirst) {
  const fs::path path = lock_path("wait");
  MachineLock first(path.string()), second(path.string());  // two open files, as two processes
  ASSERT_TRUE(first.warning().empty()) << first.warning();
  EXPECT_TRUE(fs::exists(path));  // created with its directory
  std::atomic<bool> second_held{false};
  std::thread other;
  {
    const MachineLock::Held held = first.acquire();
    ASSERT_TRUE(held.held());
    other = std::thread([&] {
      const MachineLock::Held mine = second.acquire();
      second_held = mine.held();
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_FALSE(second_held);  // still waiting while the first holds it
  }
  other.join();
  EXPECT_TRUE(second_held);
  EXPECT_GT(second.waited_seconds(), 0.05);
  EXPECT_EQ(first.waited_seconds(), 0.0);
  fs::remove_all(path.parent_path());
}

TEST(MachineLock, DisabledOrUnopenableLocksNothing) {
  MachineLock none("");
  EXPECT_FALSE(none.acquire().held());
  EXPECT_TRUE(none.warning().empty());
  MachineLock unopenable("/proc/version/cannot/be/a/directory.lock");
  EXPECT_FALSE(unopenable.acquire().held());
  EXPECT_NE(unopenable.warning().find("cannot open the machine lock"), std::string::npos);
}

TEST(MachineLock, InterruptEndsTheWait) {
  const fs::path path = lock_path("interrupt");
  MachineLock first(path.string()), second(path.string());
  const MachineLock::Held held = first.acquire();
  ASSERT_TRUE(held.held());
  InterruptGuard guard;
  std::atomic<bool> started{false}, done{false}, second_held{true};
  pthread_t waiter_id{};
  std::thread waiter([&] {
    waiter_id = pthread_self();
    started = true;
    const MachineLock::Held mine = second.acquire();
    second_held = mine.held();
    done = true;
  });
  while (!started) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  // SIGINT to the waiting thread: its flock returns EINTR and interrupted() is set.
  while (!done) {
    pthread_kill(waiter_id, SIGINT);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  waiter.join();
  EXPECT_TRUE(interrupted());
  EXPECT_FALSE(second_held);
  fs::remove_all(path.parent_path());
}

}  // namespace
}  // namespace ompscale::microbench

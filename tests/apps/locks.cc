// locks [iterations]: two parallel regions that spend their lock time differently (as in
// ScalOMP's section 5.3 experiment):
//   region 1: each thread acquires and releases its own omp lock, then busy-waits: no contention,
//             the lock time is the lock algorithm alone;
//   region 2: all threads acquire and release one shared lock, then busy-wait the same: the same
//             acquisitions, now contended.
// Both regions make the same acquisitions (one per iteration), hold the lock for the same
// busy-wait (kHoldNs) and busy-wait the same after releasing it (kSpinNs): their work is the
// same, and their lock time differs only by contention. The hold is longer than the time between
// releases, so on the shared lock a thread usually finds it held and waits for most of a hold,
// however cheap the machine makes the hand-over of the lock's cache line itself. The loops are
// worksharing loops, so the total work and the printed checksums do not depend on the thread
// count.
//
// locks fast [iterations] [work_ns]: one region where every thread takes its own lock in a tight
// loop (tens of millions of acquisitions per second per thread, a tiny critical section), or with
// about work_ns of work after each release (work_ns 80: about 8 million per second, ScalOMP's UA.B
// case), for measuring the tool's per-acquisition overhead.
//
// locks contended [iterations] [work_ns]: one region where all threads take one shared lock for a
// tiny critical section and do about work_ns of work (default 100) outside it: every instruction
// a tool runs while the lock is held lengthens the section for the threads waiting for it.
#include <omp.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "app_util.h"

namespace {

constexpr std::uint64_t kHoldNs = 100;
constexpr std::uint64_t kSpinNs = 50;

// One per thread, a cache line each, so the own-lock region shares nothing between threads.
struct alignas(64) PerThread {
  omp_lock_t lock;
  std::uint64_t sum = 0;
};

std::uint64_t own_locks(std::vector<PerThread>& slots, std::int64_t iterations,
                        std::uint64_t hold_trips, std::uint64_t spin_trips) {
#pragma omp parallel
  {
    PerThread& own = slots[omp_get_thread_num()];
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < iterations; ++i) {
      omp_set_lock(&own.lock);
      own.sum += apps::mix(i);
      apps::spin(hold_trips);
      omp_unset_lock(&own.lock);
      apps::spin(spin_trips);
    }
  }
  std::uint64_t sum = 0;
  for (const PerThread& slot : slots) sum += slot.sum;
  return sum;
}

std::uint64_t shared_lock(std::int64_t iterations, std::uint64_t hold_trips,
                          std::uint64_t spin_trips) {
  omp_lock_t lock;
  omp_init_lock(&lock);
  std::uint64_t sum = 0;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < iterations; ++i) {
    omp_set_lock(&lock);
    sum += apps::mix(i + 1);
    apps::spin(hold_trips);
    omp_unset_lock(&lock);
    apps::spin(spin_trips);
  }
  omp_destroy_lock(&lock);
  return sum;
}

}  // namespace

int main(int argc, char** argv) {
  const bool fast = argc > 1 && std::strcmp(argv[1], "fast") == 0;
  const bool contended = argc > 1 && std::strcmp(argv[1], "contended") == 0;
  if (contended) {
    const auto iterations = static_cast<std::int64_t>(apps::arg_or(argc, argv, 2, 4'000'000));
    const std::uint64_t sum =
        shared_lock(iterations, 0, apps::spin_trips_for_ns(apps::arg_or(argc, argv, 3, 100)));
    std::printf("locks contended %lld: checksum %llu\n", static_cast<long long>(iterations),
                static_cast<unsigned long long>(sum));
    return 0;
  }
  const int first = fast ? 2 : 1;
  const auto iterations =
      static_cast<std::int64_t>(apps::arg_or(argc, argv, first, fast ? 4'000'000 : 300'000));
  std::vector<PerThread> slots(omp_get_max_threads());
  for (PerThread& slot : slots) omp_init_lock(&slot.lock);
  if (fast) {
    const std::uint64_t work_ns = argc > 3 ? apps::arg_or(argc, argv, 3, 1) : 0;
    const std::uint64_t sum =
        own_locks(slots, iterations, 0, work_ns > 0 ? apps::spin_trips_for_ns(work_ns) : 0);
    std::printf("locks fast %lld: checksum %llu\n", static_cast<long long>(iterations),
                static_cast<unsigned long long>(sum));
  } else {
    const std::uint64_t hold_trips = apps::spin_trips_for_ns(kHoldNs);
    const std::uint64_t spin_trips = apps::spin_trips_for_ns(kSpinNs);
    const std::uint64_t own = own_locks(slots, iterations, hold_trips, spin_trips);
    const std::uint64_t shared = shared_lock(iterations, hold_trips, spin_trips);
    std::printf("locks %lld: own-lock checksum %llu, shared-lock checksum %llu\n",
                static_cast<long long>(iterations), static_cast<unsigned long long>(own),
                static_cast<unsigned long long>(shared));
  }
  for (PerThread& slot : slots) omp_destroy_lock(&slot.lock);
  return 0;
}

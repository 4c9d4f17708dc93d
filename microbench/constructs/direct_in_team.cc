// The direct method's in-team constructs: every thread of an existing team executes one instance
// per round between its release stamp and its end stamp (run_in_team_rounds). Bodies are empty
// (opaque_body, loop_body), so the stamps bracket the runtime's work only.

#include <omp.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "microbench/constructs/direct_kernels.h"
#include "microbench/runtime_info.h"
#include "sync/clock.h"
#include "sync/spin.h"

// OpenMP 5.1's `masked` replaces `master`; gcc 12 and clang 14 implement it, older compilers get
// `master` (same semantics without a filter clause).
#if (defined(__clang__) && __clang_major__ >= 14) || (!defined(__clang__) && __GNUC__ >= 12)
#define OMPSCALE_HAVE_MASKED 1
#else
#define OMPSCALE_HAVE_MASKED 0
#endif

namespace ompscale::microbench::direct {

namespace {

// The atomics' shared counter, alone on its cache line so only the atomics contend for it.
alignas(sync::kCacheLine) std::int64_t atomic_counter = 0;

struct alignas(sync::kCacheLine) PaddedLock {
  omp_lock_t lock;
};

/// One loop iteration: stamps the thread's first iteration, then the tiny body.
class LoopIteration {
 public:
  LoopIteration(const sync::LocalClock& clock, std::uint64_t& enter)
      : clock_(clock), enter_(enter) {}
  void operator()(int i) {
    if (enter_ == kNoStamp) enter_ = clock_.now();
    loop_body(i);
  }

 private:
  const sync::LocalClock& clock_;
  std::uint64_t& enter_;
};

/// A worksharing loop of kIterationsPerThread iterations per thread; `loop(iteration, n, chunk)`
/// holds the `omp for` with the construct's schedule. `out` is stamped after the loop's barrier.
/// The chunk is a parameter of `loop`, not a capture: clang 14 crashes on a schedule clause that
/// names a variable captured by the enclosing lambda.
template <typename Loop>
bool run_loop(InTeamBatch& batch, int chunk, const Loop& loop) {
  const int iterations = kIterationsPerThread * batch.threads;
  return run_in_team_rounds(
      batch, [&](int, const sync::LocalClock& clock, std::uint64_t&, std::uint64_t& enter) {
        LoopIteration iteration(clock, enter);
        loop(iteration, iterations, chunk);
      });
}

/// omp_set_lock/omp_unset_lock on one shared lock (`shared`) or on one lock per thread;
/// `init_lock(lock)` initialises each lock (plain or with a hint).
template <typename InitLock>
bool run_lock(InTeamBatch& batch, bool shared, const InitLock& init_lock) {
  std::vector<PaddedLock> locks(shared ? 1 : static_cast<std::size_t>(batch.threads));
  for (PaddedLock& padded : locks) init_lock(&padded.lock);
  const bool complete = run_in_team_rounds(
      batch, [&](int tid, const sync::LocalClock&, std::uint64_t&, std::uint64_t&) {
        omp_lock_t* lock = &locks[shared ? 0 : static_cast<std::size_t>(tid)].lock;
        omp_set_lock(lock);
        opaque_body();
        omp_unset_lock(lock);
      });
  for (PaddedLock& padded : locks) omp_destroy_lock(&padded.lock);
  return complete;
}

bool run_nest_lock(InTeamBatch& batch) {
  omp_nest_lock_t lock;
  omp_init_nest_lock(&lock);
  const bool complete =
      run_in_team_rounds(batch, [&](int, const sync::LocalClock&, std::uint64_t&, std::uint64_t&) {
        omp_set_nest_lock(&lock);
        omp_set_nest_lock(&lock);
        opaque_body();
        omp_unset_nest_lock(&lock);
        omp_unset_nest_lock(&lock);
      });
  omp_destroy_nest_lock(&lock);
  return complete;
}

/// The constructs whose body is the same for every thread and needs nothing but the construct.
/// Returns false for a name that is not one of them.
bool run_plain(std::string_view name, InTeamBatch& batch, bool& complete) {
  using Clock = sync::LocalClock;
  using Stamp = std::uint64_t;
  const int threads = batch.threads;
  if (name == "barrier") {
    complete = run_in_team_rounds(batch, [](int, const Clock&, Stamp&, Stamp&) {
#pragma omp barrier
    });
  } else if (name == "barrier_late") {
    // The last thread arrives 2 us after its release. `in` is each thread's stamp just before the
    // barrier, so "last in" is the late thread's arrival and the costs measure the barrier from
    // the moment it could complete, not the delay.
    const auto delay = static_cast<Stamp>(std::llround(sync::ns_to_ticks(2000)));
    complete = run_in_team_rounds(batch, [&](int tid, const Clock& clock, Stamp& in, Stamp&) {
      if (tid == threads - 1) {
        while (clock.now() - in < delay) sync::cpu_relax();
        in = clock.now();
      }
#pragma omp barrier
    });
  } else if (name == "single") {
    complete = run_in_team_rounds(batch, [](int, const Clock&, Stamp&, Stamp&) {
#pragma omp single
      opaque_body();
    });
  } else if (name == "masked") {
    complete = run_in_team_rounds(batch, [](int, const Clock&, Stamp&, Stamp&) {
#if OMPSCALE_HAVE_MASKED
#pragma omp masked
#else
#pragma omp master
#endif
      opaque_body();
    });
  } else if (name == "critical") {
    complete = run_in_team_rounds(batch, [](int, const Clock&, Stamp&, Stamp&) {
#pragma omp critical
      opaque_body();
    });
  } else if (name == "ordered") {
    // One iteration per thread; `out` is after the loop's barrier, as in EPCC's ORDERED.
    complete = run_in_team_rounds(batch, [&](int, const Clock&, Stamp&, Stamp&) {
#pragma omp for ordered schedule(static, 1)
      for (int i = 0; i < threads; ++i) {
#pragma omp ordered
        opaque_body();
      }
    });
  } else if (name == "atomic_update") {
    complete = run_in_team_rounds(batch, [](int, const Clock&, Stamp&, Stamp&) {
#pragma omp atomic update relaxed
      atomic_counter += 1;
    });
  } else if (name == "atomic_seq_cst") {
    complete = run_in_team_rounds(batch, [](int, const Clock&, Stamp&, Stamp&) {
#pragma omp atomic update seq_cst
      atomic_counter += 1;
    });
  } else if (name == "flush") {
    complete = run_in_team_rounds(batch, [](int, const Clock&, Stamp&, Stamp&) {
#pragma omp flush
    });
  } else if (name == "taskwait") {
    complete = run_in_team_rounds(batch, [](int, const Clock&, Stamp&, Stamp&) {
#pragma omp task
      opaque_body();
#pragma omp taskwait
    });
  } else if (name == "taskgroup") {
    complete = run_in_team_rounds(batch, [](int, const Clock&, Stamp&, Stamp&) {
#pragma omp taskgroup
      {
#pragma omp task
        opaque_body();
      }
    });
  } else if (name == "task_barrier") {
    complete = run_in_team_rounds(batch, [](int, const Clock&, Stamp&, Stamp&) {
#pragma omp task
      opaque_body();
#pragma omp barrier
    });
  } else {
    return false;
  }
  return true;
}

/// `for` and the for_* schedules; returns false for another name.
bool run_schedule(std::string_view name, int chunk, InTeamBatch& batch, bool& complete) {
  if (name == "for") {
    complete = run_loop(batch, chunk, [](LoopIteration& iteration, int n, int) {
#pragma omp for schedule(static)
      for (int i = 0; i < n; ++i) iteration(i);
    });
  } else if (name == "for_static") {
    complete = run_loop(batch, chunk, [](LoopIteration& iteration, int n, int chunk) {
#pragma omp for schedule(static, chunk)
      for (int i = 0; i < n; ++i) iteration(i);
    });
  } else if (name == "for_dynamic_monotonic") {
    complete = run_loop(batch, chunk, [](LoopIteration& iteration, int n, int chunk) {
#pragma omp for schedule(monotonic : dynamic, chunk)
      for (int i = 0; i < n; ++i) iteration(i);
    });
  } else if (name == "for_dynamic_nonmonotonic") {
    complete = run_loop(batch, chunk, [](LoopIteration& iteration, int n, int chunk) {
#pragma omp for schedule(nonmonotonic : dynamic, chunk)
      for (int i = 0; i < n; ++i) iteration(i);
    });
  } else if (name == "for_guided_monotonic") {
    complete = run_loop(batch, chunk, [](LoopIteration& iteration, int n, int chunk) {
#pragma omp for schedule(monotonic : guided, chunk)
      for (int i = 0; i < n; ++i) iteration(i);
    });
  } else if (name == "for_guided_nonmonotonic") {
    complete = run_loop(batch, chunk, [](LoopIteration& iteration, int n, int chunk) {
#pragma omp for schedule(nonmonotonic : guided, chunk)
      for (int i = 0; i < n; ++i) iteration(i);
    });
  } else {
    return false;
  }
  return true;
}

/// The lock constructs; returns false for another name. Sets `unavailable` when the runtime lacks
/// omp_init_lock_with_hint.
bool run_locks(std::string_view name, InTeamBatch& batch, bool& complete,
               std::string& unavailable) {
  const auto plain_init = [](omp_lock_t* lock) { omp_init_lock(lock); };
  if (name == "lock_contended") {
    complete = run_lock(batch, true, plain_init);
  } else if (name == "lock_uncontended") {
    complete = run_lock(batch, false, plain_init);
  } else if (name == "lock_hint_contended" || name == "lock_hint_uncontended") {
    // Looked up at run time: libgomp 12 does not export omp_init_lock_with_hint.
    const InitLockWithHint init_with_hint = init_lock_with_hint();
    if (init_with_hint == nullptr) {
      unavailable = lock_hint_unavailable_reason();
      return true;
    }
    const bool contended = name == "lock_hint_contended";
    const omp_sync_hint_t hint = contended ? omp_sync_hint_contended : omp_sync_hint_uncontended;
    complete = run_lock(batch, contended, [&](omp_lock_t* lock) { init_with_hint(lock, hint); });
  } else if (name == "nest_lock") {
    complete = run_nest_lock(batch);
  } else {
    return false;
  }
  return true;
}

}  // namespace

const char* masked_directive() {
  return OMPSCALE_HAVE_MASKED ? "masked" : "master";
}

std::string run_in_team_construct(std::string_view name, int param, InTeamBatch& batch) {
  bool complete = true;
  std::string unavailable;
  if (!run_plain(name, batch, complete) && !run_schedule(name, param, batch, complete) &&
      !run_locks(name, batch, complete, unavailable))
    return "the direct method has no in-team kernel for " + std::string(name);
  if (!unavailable.empty()) return unavailable;
  return complete ? "" : incomplete_team(batch.threads);
}

}  // namespace ompscale::microbench::direct

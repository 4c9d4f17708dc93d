// Synchronisation kernels: EPCC syncbench's tests and references, plus the constructs syncbench
// lacks (masked, flush, firstprivate, nest_lock, per-thread locks, a late barrier arriver), built
// the same way: the construct wraps or follows one delay per execution.
#include <omp.h>

#include <vector>

#include "microbench/constructs/epcc_kernels.h"
#include "microbench/runtime_info.h"

namespace ompscale::microbench::epcc {

namespace {

void test_parallel(const KernelArgs& args) {
  const int length = args.delay_length;
  for (long j = 0; j < args.inner; ++j) {
#pragma omp parallel num_threads(args.threads)
    delay(length);
  }
}

void test_for(const KernelArgs& args) {
  const int threads = args.threads;
  const int length = args.delay_length;
  const long inner = args.inner;
#pragma omp parallel num_threads(threads)
  for (long j = 0; j < inner; ++j) {
#pragma omp for
    for (int i = 0; i < threads; ++i) delay(length);
  }
}

void test_parallel_for(const KernelArgs& args) {
  const int threads = args.threads;
  const int length = args.delay_length;
  for (long j = 0; j < args.inner; ++j) {
#pragma omp parallel for num_threads(threads)
    for (int i = 0; i < threads; ++i) delay(length);
  }
}

void test_barrier(const KernelArgs& args) {
  const int length = args.delay_length;
  const long inner = args.inner;
#pragma omp parallel num_threads(args.threads)
  for (long j = 0; j < inner; ++j) {
    delay(length);
#pragma omp barrier
  }
}

// The last thread arrives late every time, so each barrier waits for it; the reference holds the
// same late delay, so the difference is the barrier's cost once the last thread arrives.
void test_barrier_late(const KernelArgs& args) {
  const int length = args.delay_length;
  const int late_length = args.late_delay_length;
  const long inner = args.inner;
  const int last = args.threads - 1;
#pragma omp parallel num_threads(args.threads)
  {
    const bool late = omp_get_thread_num() == last;
    for (long j = 0; j < inner; ++j) {
      delay(length);
      if (late) delay(late_length);
#pragma omp barrier
    }
  }
}

void refer_barrier_late(const KernelArgs& args) {
  for (long j = 0; j < args.inner; ++j) {
    delay(args.delay_length);
    delay(args.late_delay_length);
  }
}

void test_single(const KernelArgs& args) {
  const int length = args.delay_length;
  const long inner = args.inner;
#pragma omp parallel num_threads(args.threads)
  for (long j = 0; j < inner; ++j) {
#pragma omp single
    delay(length);
  }
}

// No barrier: the other threads only pass the masked check; the primary thread's delays set
// the time.
void test_masked(const KernelArgs& args) {
  const int length = args.delay_length;
  const long inner = args.inner;
#pragma omp parallel num_threads(args.threads)
  for (long j = 0; j < inner; ++j) {
    OMPSCALE_EPCC_MASKED
    delay(length);
  }
}

void test_critical(const KernelArgs& args) {
  const int length = args.delay_length;
  const long per_thread = args.inner / args.threads;
#pragma omp parallel num_threads(args.threads)
  for (long j = 0; j < per_thread; ++j) {
#pragma omp critical
    delay(length);
  }
}

// One lock per cache line, so per-thread locks do not contend through false sharing.
struct alignas(64) PaddedLock {
  omp_lock_t lock;
};

// Locks live for one kernel call; their initialisation is amortised over `inner` executions
// like the fork of the enclosing region.
class Locks {
 public:
  // `hint` is used only when `hinted`; hinted locks need init_lock_with_hint() (epcc.cc checks).
  Locks(int count, bool hinted, omp_sync_hint_t hint) : locks_(count) {
    for (PaddedLock& padded : locks_) {
      if (hinted)
        init_lock_with_hint()(&padded.lock, hint);
      else
        omp_init_lock(&padded.lock);
    }
  }
  ~Locks() {
    for (PaddedLock& padded : locks_) omp_destroy_lock(&padded.lock);
  }
  Locks(const Locks&) = delete;
  Locks& operator=(const Locks&) = delete;
  omp_lock_t* at(int index) { return &locks_[index].lock; }

 private:
  std::vector<PaddedLock> locks_;
};

// EPCC testlock: all threads share one lock, `inner` acquisitions in total.
void run_shared_lock(const KernelArgs& args, Locks& locks) {
  const int length = args.delay_length;
  const long per_thread = args.inner / args.threads;
  omp_lock_t* lock = locks.at(0);
#pragma omp parallel num_threads(args.threads)
  for (long j = 0; j < per_thread; ++j) {
    omp_set_lock(lock);
    delay(length);
    omp_unset_lock(lock);
  }
}

// Each thread acquires its own lock `inner` times: the lock's cost without contention, paid by
// all threads at once.
void run_own_locks(const KernelArgs& args, Locks& locks) {
  const int length = args.delay_length;
  const long inner = args.inner;
#pragma omp parallel num_threads(args.threads)
  {
    omp_lock_t* lock = locks.at(omp_get_thread_num());
    for (long j = 0; j < inner; ++j) {
      omp_set_lock(lock);
      delay(length);
      omp_unset_lock(lock);
    }
  }
}

void test_lock_contended(const KernelArgs& args) {
  Locks locks(1, false, omp_sync_hint_none);
  run_shared_lock(args, locks);
}

void test_lock_uncontended(const KernelArgs& args) {
  Locks locks(args.threads, false, omp_sync_hint_none);
  run_own_locks(args, locks);
}

void test_lock_hint_contended(const KernelArgs& args) {
  Locks locks(1, true, omp_sync_hint_contended);
  run_shared_lock(args, locks);
}

void test_lock_hint_uncontended(const KernelArgs& args) {
  Locks locks(args.threads, true, omp_sync_hint_uncontended);
  run_own_locks(args, locks);
}

void test_nest_lock(const KernelArgs& args) {
  const int length = args.delay_length;
  const long per_thread = args.inner / args.threads;
  omp_nest_lock_t lock;
  omp_init_nest_lock(&lock);
#pragma omp parallel num_threads(args.threads)
  for (long j = 0; j < per_thread; ++j) {
    omp_set_nest_lock(&lock);
    omp_set_nest_lock(&lock);
    delay(length);
    omp_unset_nest_lock(&lock);
    omp_unset_nest_lock(&lock);
  }
  omp_destroy_nest_lock(&lock);
}

void test_ordered(const KernelArgs& args) {
  const int length = args.delay_length;
  const long inner = args.inner;
#pragma omp parallel for ordered schedule(static, 1) num_threads(args.threads)
  for (long j = 0; j < inner; ++j) {
#pragma omp ordered
    delay(length);
  }
}

// EPCC's atomic tests have no delay: each execution is one atomic add of a geometric series
// term, the reference (referatom) the same arithmetic without atomicity.
constexpr double kAtomicRatio = 1.0 + 1.0e-15;

void test_atomic_update(const KernelArgs& args) {
  const long per_thread = args.inner / args.threads;
  double sum = 0.0;
  double term = 1.0;
#pragma omp parallel num_threads(args.threads) firstprivate(term)
  for (long j = 0; j < per_thread; ++j) {
#pragma omp atomic update relaxed
    sum += term;
    term *= kAtomicRatio;
  }
  consume(sum);
}

void test_atomic_seq_cst(const KernelArgs& args) {
  const long per_thread = args.inner / args.threads;
  double sum = 0.0;
  double term = 1.0;
#pragma omp parallel num_threads(args.threads) firstprivate(term)
  for (long j = 0; j < per_thread; ++j) {
#pragma omp atomic update seq_cst
    sum += term;
    term *= kAtomicRatio;
  }
  consume(sum);
}

void refer_atomic(const KernelArgs& args) {
  double sum = 0.0;
  double term = 1.0;
  for (long j = 0; j < args.inner; ++j) {
    sum += term;
    term *= kAtomicRatio;
  }
  consume(sum);
}

void test_reduction(const KernelArgs& args) {
  const int length = args.delay_length;
  double sum = 0.0;
  for (long j = 0; j < args.inner; ++j) {
#pragma omp parallel num_threads(args.threads) reduction(+ : sum)
    {
      delay(length);
      sum += 1.0;
    }
  }
  consume(sum);
}

void refer_reduction(const KernelArgs& args) {
  double sum = 0.0;
  for (long j = 0; j < args.inner; ++j) {
    delay(args.delay_length);
    sum += 1.0;
  }
  consume(sum);
}

void test_flush(const KernelArgs& args) {
  const int length = args.delay_length;
  const long inner = args.inner;
#pragma omp parallel num_threads(args.threads)
  for (long j = 0; j < inner; ++j) {
    delay(length);
#pragma omp flush
  }
}

// The region's body writes its copy (array_delay), so the copy cannot be elided; the reference is
// arraybench's, the same loop on a local.
void test_firstprivate(const KernelArgs& args) {
  const int length = args.delay_length;
  double value = 1.0;
  for (long j = 0; j < args.inner; ++j) {
#pragma omp parallel num_threads(args.threads) firstprivate(value)
    array_delay(length, &value);
  }
}

constexpr Kernel kSyncKernels[] = {
    {.name = "parallel", .test = test_parallel, .reference = refer},
    {.name = "for", .test = test_for, .reference = refer},
    {.name = "parallel_for", .test = test_parallel_for, .reference = refer},
    {.name = "barrier", .test = test_barrier, .reference = refer},
    {.name = "barrier_late", .test = test_barrier_late, .reference = refer_barrier_late},
    {.name = "single", .test = test_single, .reference = refer},
    {.name = "masked", .test = test_masked, .reference = refer},
    {.name = "critical", .test = test_critical, .reference = refer, .split_over_threads = true},
    {.name = "lock_contended",
     .test = test_lock_contended,
     .reference = refer,
     .split_over_threads = true},
    {.name = "lock_uncontended", .test = test_lock_uncontended, .reference = refer},
    {.name = "lock_hint_contended",
     .test = test_lock_hint_contended,
     .reference = refer,
     .split_over_threads = true,
     .needs_lock_hint = true},
    {.name = "lock_hint_uncontended",
     .test = test_lock_hint_uncontended,
     .reference = refer,
     .needs_lock_hint = true},
    {.name = "nest_lock", .test = test_nest_lock, .reference = refer, .split_over_threads = true},
    {.name = "ordered", .test = test_ordered, .reference = refer},
    {.name = "atomic_update",
     .test = test_atomic_update,
     .reference = refer_atomic,
     .split_over_threads = true},
    {.name = "atomic_seq_cst",
     .test = test_atomic_seq_cst,
     .reference = refer_atomic,
     .split_over_threads = true},
    {.name = "reduction", .test = test_reduction, .reference = refer_reduction},
    {.name = "flush", .test = test_flush, .reference = refer},
    {.name = "firstprivate", .test = test_firstprivate, .reference = refer_array},
};

}  // namespace

std::span<const Kernel> sync_kernels() {
  return kSyncKernels;
}

}  // namespace ompscale::microbench::epcc

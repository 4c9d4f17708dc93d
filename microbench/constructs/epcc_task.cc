// Task kernels: EPCC taskbench. One construct execution is one task (with its delay); the
// reference is EPCC's refer, `inner` delays on one thread.
#include "microbench/constructs/epcc_kernels.h"

namespace ompscale::microbench::epcc {

namespace {

// EPCC PARALLEL TASK: every thread creates `inner` tasks.
void test_task_all(const KernelArgs& args) {
  const int length = args.delay_length;
  const long inner = args.inner;
#pragma omp parallel num_threads(args.threads)
  for (long j = 0; j < inner; ++j) {
#pragma omp task
    delay(length);
  }
}

// EPCC MASTER TASK: the primary thread creates all `inner * threads` tasks; the others execute
// them at the region's closing barrier.
void test_task_single(const KernelArgs& args) {
  const int length = args.delay_length;
  const long tasks = args.inner * args.threads;
#pragma omp parallel num_threads(args.threads)
  {
    OMPSCALE_EPCC_MASKED
    for (long j = 0; j < tasks; ++j) {
#pragma omp task
      delay(length);
    }
  }
}

// EPCC TASK WAIT.
void test_taskwait(const KernelArgs& args) {
  const int length = args.delay_length;
  const long inner = args.inner;
#pragma omp parallel num_threads(args.threads)
  for (long j = 0; j < inner; ++j) {
#pragma omp task
    delay(length);
#pragma omp taskwait
  }
}

// TASK WAIT with a taskgroup in place of the taskwait.
void test_taskgroup(const KernelArgs& args) {
  const int length = args.delay_length;
  const long inner = args.inner;
#pragma omp parallel num_threads(args.threads)
  for (long j = 0; j < inner; ++j) {
#pragma omp taskgroup
    {
#pragma omp task
      delay(length);
    }
  }
}

// EPCC TASK BARRIER.
void test_task_barrier(const KernelArgs& args) {
  const int length = args.delay_length;
  const long inner = args.inner;
#pragma omp parallel num_threads(args.threads)
  for (long j = 0; j < inner; ++j) {
#pragma omp task
    delay(length);
#pragma omp barrier
  }
}

// EPCC NESTED TASK: each thread creates inner / threads tasks, each of which creates `threads`
// untied tasks and waits for them.
void test_task_nested(const KernelArgs& args) {
  const int length = args.delay_length;
  const int threads = args.threads;
  const long per_thread = args.inner / args.threads;
#pragma omp parallel num_threads(threads)
  for (long j = 0; j < per_thread; ++j) {
#pragma omp task
    {
      for (int i = 0; i < threads; ++i) {
#pragma omp task untied
        delay(length);
      }
#pragma omp taskwait
    }
  }
}

// EPCC leafTaskTree: a binary tree of tasks `level` deep with one delay at each leaf.
void leaf_task_tree(int level, int length) {
  if (level == 0) {
    delay(length);
    return;
  }
#pragma omp task
  {
    leaf_task_tree(level - 1, length);
    leaf_task_tree(level - 1, length);
  }
}

// EPCC LEAF TASK TREE: each thread builds inner / 2^depth trees, i.e. `inner` leaves.
void test_task_tree(const KernelArgs& args) {
  const int length = args.delay_length;
  const long trees = args.inner >> kTaskTreeDepth;
#pragma omp parallel num_threads(args.threads)
  for (long j = 0; j < trees; ++j) leaf_task_tree(kTaskTreeDepth, length);
}

constexpr Kernel kTaskKernels[] = {
    {.name = "task_all", .test = test_task_all, .reference = refer},
    {.name = "task_single", .test = test_task_single, .reference = refer},
    {.name = "taskwait", .test = test_taskwait, .reference = refer},
    {.name = "taskgroup", .test = test_taskgroup, .reference = refer},
    {.name = "task_barrier", .test = test_task_barrier, .reference = refer},
    {.name = "task_nested",
     .test = test_task_nested,
     .reference = refer,
     .split_over_threads = true},
    // EPCC's refer2 runs (inner >> depth) << depth delays; with `inner` a multiple of the leaves
    // per tree that is refer.
    {.name = "task_tree",
     .test = test_task_tree,
     .reference = refer,
     .inner_multiple = 1L << kTaskTreeDepth},
};

}  // namespace

std::span<const Kernel> task_kernels() {
  return kTaskKernels;
}

}  // namespace ompscale::microbench::epcc

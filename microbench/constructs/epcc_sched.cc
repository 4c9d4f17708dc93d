// Scheduling kernels: EPCC schedbench. One construct execution is one worksharing loop of
// kIterationsPerThread iterations per thread, each iteration one delay; the reference runs one
// thread's share of the iterations, so the difference is the scheduling cost per loop.
#include "microbench/constructs/epcc_kernels.h"

namespace ompscale::microbench::epcc {

namespace {

void refer_loop(const KernelArgs& args) {
  for (long j = 0; j < args.inner; ++j)
    for (int i = 0; i < kIterationsPerThread; ++i) delay(args.delay_length);
}

// The five loop tests differ only in their schedule clause, which must be written out (a runtime
// schedule would measure schedule(runtime) instead), so one macro spells them.
#define OMPSCALE_EPCC_PRAGMA(text) _Pragma(#text)
#define OMPSCALE_EPCC_LOOP_TEST(name, ...)                       \
  void name(const KernelArgs& args) {                            \
    const int length = args.delay_length;                        \
    const int chunk = args.param;                                \
    const int iterations = kIterationsPerThread * args.threads;  \
    const long inner = args.inner;                               \
    OMPSCALE_EPCC_PRAGMA(omp parallel num_threads(args.threads)) \
    for (long j = 0; j < inner; ++j) {                           \
      OMPSCALE_EPCC_PRAGMA(omp for schedule(__VA_ARGS__))        \
      for (int i = 0; i < iterations; ++i) delay(length);        \
    }                                                            \
  }

OMPSCALE_EPCC_LOOP_TEST(test_static, static, chunk)
OMPSCALE_EPCC_LOOP_TEST(test_dynamic_monotonic, monotonic : dynamic, chunk)
OMPSCALE_EPCC_LOOP_TEST(test_dynamic_nonmonotonic, nonmonotonic : dynamic, chunk)
OMPSCALE_EPCC_LOOP_TEST(test_guided_monotonic, monotonic : guided, chunk)
OMPSCALE_EPCC_LOOP_TEST(test_guided_nonmonotonic, nonmonotonic : guided, chunk)

// EPCC taskloopn with grainsize(chunk) in place of num_tasks(iterations / chunk): the same task
// count when chunk divides the iterations, and it names the parameter directly. The taskloop's
// implicit taskgroup completes every loop before the next.
void test_taskloop(const KernelArgs& args) {
  const int length = args.delay_length;
  const int chunk = args.param;
  // Unsigned: clang 14 compares a signed taskloop variable with its unsigned trip count and warns.
  const unsigned iterations = kIterationsPerThread * args.threads;
  const long inner = args.inner;
#pragma omp parallel num_threads(args.threads)
  {
    OMPSCALE_EPCC_MASKED
    for (long j = 0; j < inner; ++j) {
#pragma omp taskloop grainsize(chunk)
      for (unsigned i = 0; i < iterations; ++i) delay(length);
    }
  }
}

constexpr Kernel kSchedKernels[] = {
    {.name = "for_static", .test = test_static, .reference = refer_loop},
    {.name = "for_dynamic_monotonic", .test = test_dynamic_monotonic, .reference = refer_loop},
    {.name = "for_dynamic_nonmonotonic",
     .test = test_dynamic_nonmonotonic,
     .reference = refer_loop},
    {.name = "for_guided_monotonic", .test = test_guided_monotonic, .reference = refer_loop},
    {.name = "for_guided_nonmonotonic", .test = test_guided_nonmonotonic, .reference = refer_loop},
    {.name = "taskloop", .test = test_taskloop, .reference = refer_loop},
};

}  // namespace

std::span<const Kernel> sched_kernels() {
  return kSchedKernels;
}

}  // namespace ompscale::microbench::epcc

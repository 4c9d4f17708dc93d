#pragma once
// The EPCC method's kernels (ports of EPCC v4 syncbench, schedbench, arraybench and taskbench):
// for every construct, a test that executes the construct `inner` times around a delay, and the
// reference that runs the same delays without it. Internal to the worker (epcc.cc uses it).

#include <span>
#include <string_view>

#include "microbench/catalogue.h"

// `masked` is OpenMP 5.1; gcc 12 and clang 14 implement it but report an older _OPENMP, so the
// compiler version decides. Older compilers get `master`, its deprecated equivalent.
#if (defined(_OPENMP) && _OPENMP >= 202011) || (defined(__clang__) && __clang_major__ >= 14) || \
    (!defined(__clang__) && defined(__GNUC__) && __GNUC__ >= 12)
#define OMPSCALE_EPCC_MASKED _Pragma("omp masked")
#else
#define OMPSCALE_EPCC_MASKED _Pragma("omp master")
#endif

namespace ompscale::microbench::epcc {

struct KernelArgs {
  int threads = 1;
  /// Construct executions in one call (EPCC innerreps).
  long inner = 1;
  /// Iterations of delay() that take the configured delay time (EPCC delaylength).
  int delay_length = 0;
  /// Iterations of delay() that take the barrier_late construct's extra delay.
  int late_delay_length = 0;
  /// The construct's parameter: chunk (sched), array size (data); 0 when it has none.
  int param = 0;
};

using KernelFunction = void (*)(const KernelArgs& args);

struct Kernel {
  std::string_view name;  // the catalogue's construct name
  KernelFunction test;
  KernelFunction reference;
  /// The test needs `inner` to be a multiple of this (the task tree's leaves per tree).
  long inner_multiple = 1;
  /// Each thread runs inner / threads executions (EPCC's critical, lock, atomic), so `inner` must
  /// be a multiple of the thread count for test and reference to do the same work.
  bool split_over_threads = false;
  /// Locks initialised with omp_init_lock_with_hint, which not every runtime exports.
  bool needs_lock_hint = false;
};

/// Extra delay of the one late thread in barrier_late.
inline constexpr double kLateArrivalUs = 2.0;
/// Largest array of the data-environment constructs: EPCC arraybench's largest size, 3^10.
inline constexpr int kMaxArraySize = 59049;
/// Depth of the task tree (EPCC taskbench DEPTH): 2^6 leaves per tree.
inline constexpr int kTaskTreeDepth = 6;

// The delay loops, compiled apart from the kernels and never inlined so no loop around them can
// be folded; they consume their result so the loop itself cannot be dropped.
void delay(int length);
/// EPCC array_delay: the same loop accumulating into a[0], so the array is written.
void array_delay(int length, double* a);
/// Forces `value` to be computed without touching shared memory.
void consume(double value);

// The references shared by several suites.
/// EPCC refer: `inner` delays.
void refer(const KernelArgs& args);
/// EPCC arraybench refer: `inner` array delays on a local array.
void refer_array(const KernelArgs& args);

std::span<const Kernel> sync_kernels();
std::span<const Kernel> sched_kernels();
std::span<const Kernel> data_kernels();
std::span<const Kernel> task_kernels();

/// The kernel of construct `name`, or nullptr.
const Kernel* find_kernel(std::string_view name);

}  // namespace ompscale::microbench::epcc

// The direct method's team-creating constructs: per round the master opens one parallel region
// (run_team_creating_rounds); each region body stamps first thing and at its end
// (TeamCreatingBatch::enter_region / leave_region).
//
// Where a construct's work happens decides the metric it shows in: firstprivate and copyin copies
// are made at region entry (fork_avg, fork_max), the reduction is combined at region exit (join),
// copyprivate's broadcast is inside the body (min/avg/max_cost).
//
// Data constructs copy exactly array_size doubles: the arrays are `Doubles<N>` for the sizes the
// catalogue lists, so each size is its own type and every copy is of exactly that size.

#include <omp.h>

#include <string>
#include <string_view>

#include "microbench/constructs/direct_kernels.h"

namespace ompscale::microbench::direct {

namespace {

template <int N>
struct Doubles {
  double values[N];
};

using Region = void (*)(TeamCreatingBatch& batch, int round);

void parallel_region(TeamCreatingBatch& batch, int round) {
#pragma omp parallel num_threads(batch.threads)
  {
    const int tid = batch.enter_region(round);
    batch.leave_region(tid, round);
  }
}

void parallel_for_region(TeamCreatingBatch& batch, int round) {
  const int iterations = kIterationsPerThread * batch.threads;
  // schedule(static, kIterationsPerThread) hands chunk k, iterations [128 k, 128 k + 128), to
  // thread k, so a thread's first and last iterations are its first and last stamps.
#pragma omp parallel for num_threads(batch.threads) schedule(static, kIterationsPerThread)
  for (int i = 0; i < iterations; ++i) {
    const int tid = i / kIterationsPerThread;
    const int position = i % kIterationsPerThread;
    if (position == 0) batch.first.at(tid, round) = batch.clocks[tid].now();
    loop_body(i);
    if (position == kIterationsPerThread - 1) {
      batch.leave_region(tid, round);
      // With a smaller team chunk k runs on another thread, whose clock is not clocks[k].
      if (omp_get_thread_num() != tid) batch.end.at(tid, round) = kNoStamp;
    }
  }
}

void reduction_region(TeamCreatingBatch& batch, int round) {
  double sum = 0;
#pragma omp parallel num_threads(batch.threads) reduction(+ : sum)
  {
    const int tid = batch.enter_region(round);
    sum += 1;
    batch.leave_region(tid, round);
  }
  escape(&sum);
}

void firstprivate_region(TeamCreatingBatch& batch, int round) {
  double value = 1;  // one 8-byte variable, the paper's case
#pragma omp parallel num_threads(batch.threads) firstprivate(value)
  {
    const int tid = batch.enter_region(round);
    escape(&value);
    batch.leave_region(tid, round);
  }
}

template <int N>
void private_region(TeamCreatingBatch& batch, int round) {
  Doubles<N> array;
#pragma omp parallel num_threads(batch.threads) private(array)
  {
    const int tid = batch.enter_region(round);
    array.values[0] = tid;
    escape(&array);
    batch.leave_region(tid, round);
  }
}

template <int N>
void firstprivate_array_region(TeamCreatingBatch& batch, int round) {
  static Doubles<N> array;  // static storage: zero-initialised and not re-filled per round
#pragma omp parallel num_threads(batch.threads) firstprivate(array)
  {
    const int tid = batch.enter_region(round);
    escape(&array);
    batch.leave_region(tid, round);
  }
}

// copyin and copyprivate name a threadprivate variable, and gcc 12 refuses threadprivate variables
// of template-dependent type; so each size gets a named variable (zero-initialised per thread, so
// every copy reads defined values) and its two regions from this macro.
#define OMPSCALE_PRAGMA(directive) _Pragma(#directive)
#define OMPSCALE_THREADPRIVATE_REGIONS(N)                                                \
  Doubles<N> threadprivate_##N;                                                          \
  OMPSCALE_PRAGMA(omp threadprivate(threadprivate_##N))                                  \
  void copyin_region_##N(TeamCreatingBatch& batch, int round) {                          \
    OMPSCALE_PRAGMA(omp parallel num_threads(batch.threads) copyin(threadprivate_##N)) { \
      const int tid = batch.enter_region(round);                                         \
      escape(&threadprivate_##N);                                                        \
      batch.leave_region(tid, round);                                                    \
    }                                                                                    \
  }                                                                                      \
  void copyprivate_region_##N(TeamCreatingBatch& batch, int round) {                     \
    OMPSCALE_PRAGMA(omp parallel num_threads(batch.threads)) {                           \
      const int tid = batch.enter_region(round);                                         \
      OMPSCALE_PRAGMA(omp single copyprivate(threadprivate_##N))                         \
      threadprivate_##N.values[0] = tid;                                                 \
      escape(&threadprivate_##N);                                                        \
      batch.leave_region(tid, round);                                                    \
    }                                                                                    \
  }

OMPSCALE_THREADPRIVATE_REGIONS(1)
OMPSCALE_THREADPRIVATE_REGIONS(27)
OMPSCALE_THREADPRIVATE_REGIONS(729)
OMPSCALE_THREADPRIVATE_REGIONS(19683)

#undef OMPSCALE_THREADPRIVATE_REGIONS
#undef OMPSCALE_PRAGMA

struct ArrayRegions {
  int size;
  Region private_array;
  Region firstprivate_array;
  Region copyprivate;
  Region copyin;
};

// The catalogue's array sizes (catalogue.cc, kArraySizes).
constexpr ArrayRegions kArrayRegions[] = {
    {1, private_region<1>, firstprivate_array_region<1>, copyprivate_region_1, copyin_region_1},
    {27, private_region<27>, firstprivate_array_region<27>, copyprivate_region_27,
     copyin_region_27},
    {729, private_region<729>, firstprivate_array_region<729>, copyprivate_region_729,
     copyin_region_729},
    {19683, private_region<19683>, firstprivate_array_region<19683>, copyprivate_region_19683,
     copyin_region_19683},
};

std::string supported_sizes() {
  std::string text;
  for (const ArrayRegions& regions : kArrayRegions)
    text += (text.empty() ? "" : ", ") + std::to_string(regions.size);
  return text;
}

/// The region of `name` (array constructs at `array_size`); nullptr with `unavailable` set when
/// there is none.
Region find_region(std::string_view name, int array_size, std::string& unavailable) {
  if (name == "parallel") return parallel_region;
  if (name == "parallel_for") return parallel_for_region;
  if (name == "reduction") return reduction_region;
  if (name == "firstprivate") return firstprivate_region;
  const bool array_construct = name == "private" || name == "firstprivate_array" ||
                               name == "copyprivate" || name == "copyin";
  if (!array_construct) {
    unavailable = "the direct method has no team-creating kernel for " + std::string(name);
    return nullptr;
  }
  for (const ArrayRegions& regions : kArrayRegions) {
    if (regions.size != array_size) continue;
    if (name == "private") return regions.private_array;
    if (name == "firstprivate_array") return regions.firstprivate_array;
    if (name == "copyprivate") return regions.copyprivate;
    return regions.copyin;
  }
  unavailable = "array_size " + std::to_string(array_size) +
                " is not supported by the direct method (supported: " + supported_sizes() + ")";
  return nullptr;
}

}  // namespace

std::string run_team_creating_construct(std::string_view name, int param,
                                        TeamCreatingBatch& batch) {
  std::string unavailable;
  const Region region = find_region(name, param, unavailable);
  if (region == nullptr) return unavailable;
  run_team_creating_rounds(batch, [&](int round) { region(batch, round); });
  return batch.every_thread_stamped() ? "" : incomplete_team(batch.threads);
}

}  // namespace ompscale::microbench::direct

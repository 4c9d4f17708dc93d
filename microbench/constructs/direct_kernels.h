#pragma once
// The round loops of the direct method (microbench/direct.h) and the stamp storage they fill.
// direct_in_team.cc and direct_team_creating.cc plug one construct instance into these loops;
// direct.cc turns the stamps into metrics.
//
// Between a thread's two stamps there is only the construct: no allocation, lock or system call.
// Stamps are stored raw (each thread's LocalClock) and corrected to the master's clock after the
// parallel region.

#include <omp.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "microbench/catalogue.h"
#include "sync/clock.h"
#include "sync/spin.h"
#include "sync/window.h"

namespace ompscale::microbench::direct {

/// Marks a stamp that was not taken (a thread that got no loop iteration).
inline constexpr std::uint64_t kNoStamp = 0;

/// A statement the compiler must keep but that costs no instruction, so that a construct's body is
/// never empty and cannot be folded away (e.g. `masked` is lowered to a thread-number test).
inline void opaque_body() {
  __asm__ __volatile__("" ::: "memory");
}

/// Makes the compiler assume `data` is read, so a private copy it points to must really exist.
inline void escape(const void* data) {
  __asm__ __volatile__("" : : "r"(data) : "memory");
}

/// The body of every measured loop iteration: the compiler must materialise `i` in each
/// iteration, so it can neither drop the loop nor merge iterations, and there is no memory traffic.
inline void loop_body(int i) {
  __asm__ __volatile__("" : : "r"(i));
}

/// One stamp per thread and round, [tid][round]. Each thread's row starts on its own cache line,
/// so threads storing their stamps do not share lines.
class StampRows {
 public:
  StampRows(int threads, int rounds)
      : stride_((static_cast<std::size_t>(rounds) + kPerLine - 1) / kPerLine * kPerLine),
        storage_(static_cast<std::size_t>(threads) * stride_ + kPerLine, kNoStamp) {
    const auto address = reinterpret_cast<std::uintptr_t>(storage_.data());
    const std::size_t misalignment = address % sync::kCacheLine;
    data_ = storage_.data() +
            (misalignment == 0 ? 0 : (sync::kCacheLine - misalignment) / sizeof(std::uint64_t));
  }
  StampRows(const StampRows&) = delete;
  StampRows& operator=(const StampRows&) = delete;

  std::uint64_t& at(int tid, int round) {
    return data_[static_cast<std::size_t>(tid) * stride_ + static_cast<std::size_t>(round)];
  }
  std::uint64_t at(int tid, int round) const {
    return data_[static_cast<std::size_t>(tid) * stride_ + static_cast<std::size_t>(round)];
  }

 private:
  static constexpr std::size_t kPerLine = sync::kCacheLine / sizeof(std::uint64_t);
  std::size_t stride_;
  std::vector<std::uint64_t> storage_;
  std::uint64_t* data_;
};

/// BatchResult::unavailable when the runtime formed a smaller team than asked for.
inline std::string incomplete_team(int threads) {
  return "the runtime formed fewer than " + std::to_string(threads) + " threads";
}

/// Runs `per_thread(tid)` on every thread of a team of exactly `threads` threads. Returns false
/// (and runs nothing) when the runtime formed a smaller team, e.g. under OMP_THREAD_LIMIT or when
/// called inside a parallel region: the window and calibration protocols would wait forever for
/// the missing threads.
template <typename PerThread>
bool on_team(int threads, const PerThread& per_thread) {
  std::atomic<bool> complete{true};
#pragma omp parallel num_threads(threads)
  {
    if (omp_get_num_threads() != threads)
      complete.store(false, std::memory_order_relaxed);
    else
      per_thread(omp_get_thread_num());
  }
  return complete.load(std::memory_order_relaxed);
}

/// Inputs and stamps of one batch of an in-team construct (barrier, locks, loops, tasks, ...).
struct InTeamBatch {
  InTeamBatch(int threads, int rounds, const sync::LocalClock* clocks, sync::WindowRelease* window)
      : threads(threads),
        rounds(rounds),
        clocks(clocks),
        window(window),
        in(threads, rounds),
        out(threads, rounds),
        enter(threads, rounds),
        outcomes(static_cast<std::size_t>(rounds)) {}

  int threads;
  int rounds;
  const sync::LocalClock* clocks;  // index = thread id
  sync::WindowRelease* window;     // the team's window
  StampRows in;                    // release stamp, or later when the construct says so
  StampRows out;                   // after the construct
  StampRows enter;                 // loops: first iteration (kNoStamp when a thread got none)
  std::vector<sync::RoundOutcome> outcomes;  // written by the master
};

/// Runs batch.rounds rounds of one construct in one parallel region. Per round and thread:
/// window release, stamp `in`, construct(tid, clock, in, enter), stamp `out`, report the end.
/// The construct may move `in` later (barrier_late) and sets `enter` when it has a first iteration.
/// Returns false when the runtime did not form the full team.
template <typename Construct>
bool run_in_team_rounds(InTeamBatch& batch, const Construct& construct) {
  return on_team(batch.threads, [&](int tid) {
    const sync::LocalClock clock = batch.clocks[tid];
    for (int round = 0; round < batch.rounds; ++round) {
      batch.window->wait_release(tid, clock);
      std::uint64_t in = clock.now();
      std::uint64_t enter = kNoStamp;
      construct(tid, clock, in, enter);
      const std::uint64_t out = clock.now();
      batch.window->finish(tid, out);
      batch.in.at(tid, round) = in;
      batch.out.at(tid, round) = out;
      batch.enter.at(tid, round) = enter;
      if (tid == 0) batch.outcomes[static_cast<std::size_t>(round)] = batch.window->outcome();
    }
  });
}

/// Inputs and stamps of one batch of a construct that creates its team (parallel, reduction, data
/// environment). Only the master is released (by a one-thread window); it stamps before and after
/// the region, every thread of the region stamps first thing and at the end of the body.
struct TeamCreatingBatch {
  TeamCreatingBatch(int threads, int rounds, const sync::LocalClock* clocks,
                    sync::WindowRelease* master_window)
      : threads(threads),
        rounds(rounds),
        clocks(clocks),
        master_window(master_window),
        before(static_cast<std::size_t>(rounds), kNoStamp),
        after(static_cast<std::size_t>(rounds), kNoStamp),
        first(threads, rounds),
        end(threads, rounds),
        outcomes(static_cast<std::size_t>(rounds)) {}

  /// First thing in the region body: stamps this thread's entry; returns its thread id.
  int enter_region(int round) {
    const int tid = omp_get_thread_num();
    first.at(tid, round) = clocks[tid].now();
    return tid;
  }
  /// Last thing in the region body.
  void leave_region(int tid, int round) { end.at(tid, round) = clocks[tid].now(); }

  /// True when every thread stamped in every round, i.e. every region had the full team.
  bool every_thread_stamped() const {
    for (int tid = 0; tid < threads; ++tid)
      for (int round = 0; round < rounds; ++round)
        if (first.at(tid, round) == kNoStamp || end.at(tid, round) == kNoStamp) return false;
    return true;
  }

  int threads;
  int rounds;
  const sync::LocalClock* clocks;      // index = thread id; the master stamps with clocks[0]
  sync::WindowRelease* master_window;  // a window of one thread: the master
  std::vector<std::uint64_t> before;   // master, before the construct
  std::vector<std::uint64_t> after;    // master, after the construct
  StampRows first;                     // each thread, first thing in the region
  StampRows end;                       // each thread, end of the region body
  std::vector<sync::RoundOutcome> outcomes;
};

/// Runs batch.rounds rounds serially on the calling thread (the master, outside any region):
/// release, stamp before, fork_round(round) (which opens the region), stamp after.
template <typename ForkRound>
void run_team_creating_rounds(TeamCreatingBatch& batch, const ForkRound& fork_round) {
  const sync::LocalClock master = batch.clocks[0];
  for (int round = 0; round < batch.rounds; ++round) {
    batch.master_window->wait_release(0, master);
    const std::uint64_t before = master.now();
    fork_round(round);
    const std::uint64_t after = master.now();
    batch.master_window->finish(0, after);
    const auto index = static_cast<std::size_t>(round);
    batch.before[index] = before;
    batch.after[index] = after;
    batch.outcomes[index] = batch.master_window->outcome();
  }
}

/// Runs one batch of the in-team construct `name` (`param`: the chunk of the for_* schedules).
/// Returns "" on success, else why the construct cannot run here (BatchResult::unavailable).
std::string run_in_team_construct(std::string_view name, int param, InTeamBatch& batch);

/// Runs one batch of the team-creating construct `name` (`param`: array_size of the data
/// constructs). Returns "" on success, else why it cannot run here.
std::string run_team_creating_construct(std::string_view name, int param, TeamCreatingBatch& batch);

/// "masked" or "master": the directive the `masked` construct compiles to with this compiler.
const char* masked_directive();

}  // namespace ompscale::microbench::direct

#pragma once
// The price of balancing a loop with another schedule (docs/ompscan-report.md, "Pricing a
// schedule"): the imbalance a dynamic or guided schedule would remove, minus what its chunks cost
// (a dispatch each, measured on this machine: machine_costs.h) and the locality it loses (a cache
// line shared by two threads at each chunk boundary), for each candidate, and the one with the
// largest net gain, or none when no candidate's net gain is positive.
//
// A static loop whose threads take less time in all than at a smaller thread count (superlinear:
// each thread's block stays in its own core's cache) would lose that where a candidate deals
// iterations to other threads: the replay counts the iterations it moves, and that share of the
// shortfall is a cost of the change too (followed on LULESH, a change priced with the
// boundaries' cache lines alone made a superlinear loop slower).
//
// A loop the report saw with a static schedule (its threads' times and the trip count known:
// clang's static loops, dispatched loops run static) is replayed: the iterations of thread t's
// static block cost its measured time (its median over the repetitions: the block is the same in
// each, a core slowed for a while is not) spread evenly over them, and the candidate schedule deals
// its chunks to whichever thread is free first, each chunk costing its iterations plus its
// dispatch, the way the runtime does (libomp's guided chunks are a 1/(2p) share of the remaining
// iterations, libgomp's a 1/p share). A loop already dynamic with a known chunk: what is left of
// its imbalance shrinks with the chunk, and more chunks cost more dispatches. Anything else (a
// GCC build's static loops call no runtime function: neither their iterations nor their time
// are seen) is not priced, and says why.

#include <string>
#include <vector>

#include "regions/report/machine_costs.h"

namespace ompscale::regions::report {

/// One loop at one thread count, as measured.
struct LoopShape {
  int threads = 0;
  double executions = 0.0;  ///< executions in the run (scaled)
  double iterations = 0.0;  ///< trip count of one execution; 0: not seen
  std::vector<double>
      work_s;  ///< per thread: time inside the loop, all executions; empty: not seen
  /// Per thread: the median of work_s over the repetitions (ConstructCosts::thread_time_median);
  /// a static loop is priced from it when every thread has one, from work_s otherwise.
  std::vector<double> work_median_s;
  std::vector<double> waits_s;  ///< per thread: wait at its barrier before the last arrival
  std::string schedule;         ///< schedule_words(): "static", "dynamic,64", "runtime (...)", ""
  /// The loop's time summed over its threads at a smaller thread count (the series' first), all
  /// executions; 0: not measured there. When the threads now take less in all, their static
  /// blocks gain from the cache (each thread's data stays in its own core's cache, or warm from
  /// an earlier loop with the same blocks), and a schedule that deals iterations to other threads
  /// loses that in proportion to the iterations it moves.
  double reference_work_s = 0.0;
};

/// One schedule the loop could have, and what it would save (all executions, per thread).
struct ScheduleOption {
  std::string schedule;   ///< "dynamic,64", "guided"
  double chunks = 0.0;    ///< chunks per execution
  double removed = 0.0;   ///< imbalance removed
  double dispatch = 0.0;  ///< the chunks' dispatch and the schedule's own cost per execution
  double locality = 0.0;  ///< a cache line moved at each chunk boundary
  /// The static blocks' cache benefit lost (LoopShape::reference_work_s): the share of the
  /// iterations dealt to a thread other than their static block's (`moved`) of what the
  /// threads' time fell short of the reference's, per thread, when that exceeds the least net
  /// gain (LoopPrice::least_net; less may be the runs' noise).
  double affinity = 0.0;
  double moved = 0.0;  ///< share of the iterations that change threads
  double net() const { return removed - dispatch - locality - affinity; }
};

struct LoopPrice {
  bool priced = false;  ///< false: not enough is known (`why`)
  std::string why;
  double imbalance = 0.0;  ///< the loop's imbalance now (per-thread mean, all executions)
  /// The least net gain that pays: least_visible_gain() of the program's repetitions at this
  /// thread count. A user who follows a change that saves less cannot tell its gain from noise,
  /// and the price leaves out what is hard to price (cache contents moved between threads), so
  /// it is not advised.
  double least_net = 0.0;
  std::vector<ScheduleOption> options;  ///< every candidate, best net gain first
  /// The best option with a net gain above least_net (and 0), or nullptr: no change pays.
  const ScheduleOption* best() const;
};

/// The least saving a user sees beyond run-to-run noise when comparing the medians of
/// `repetitions` runs before and after a change, the runs' robust standard deviation being
/// `noise` seconds: twice the standard error of the difference of two such medians,
/// 2 x sqrt(2) x stats::median_standard_error(noise, repetitions). 0 for fewer than two
/// repetitions.
double least_measurable_gain(double noise, int repetitions);

/// What a schedule change must save to be advised: least_measurable_gain(), and at least
/// `least_fraction` of the program's `time` (a few repetitions can agree closely by chance, and
/// a saving below the hints' threshold is lost in a user's next runs). 0 for fewer than two
/// repetitions: then any positive net gain pays.
double least_visible_gain(double noise, int repetitions, double time, double least_fraction);

/// Prices the candidate schedules of `loop` with `costs` (the runtime the program will run on);
/// a change pays when its net gain exceeds `least_net` (seconds, LoopPrice::least_net).
LoopPrice price_loop(const LoopShape& loop, const MachineCosts& costs, double least_net = 0.0);

/// How to ask for `option` ("dynamic,64", "guided") at a loop whose schedule is `now`
/// (schedule_words()): "schedule(dynamic, 64)" in the code; for a schedule(runtime) loop
/// "OMP_SCHEDULE=dynamic,64" when the environment set it, "omp_set_schedule(omp_sched_dynamic,
/// 64)" when the program did (a chunk of 0: the runtime's default), and both when OMP_SCHEDULE
/// was unset (the program or the runtime's default chose it).
std::string schedule_request(const std::string& option, const std::string& now);

/// "schedule(dynamic, 64): removes 12.3 ms of waiting, costs 1.1 ms in 430 chunks per execution
/// and 0.2 ms in cache lines at chunk boundaries, 11 ms net", or why no change pays (none saves
/// anything, or none more than the runs' spread), or why the loop is not priced.
std::string price_words(const LoopPrice& price, const std::string& now);

/// Chunks a guided schedule with minimum chunk `min_chunk` deals for `iterations` iterations on
/// `threads` threads, the runtime's way (libomp: a 1/(2 threads) share of what remains; libgomp:
/// a 1/threads share), in dealing order.
std::vector<double> guided_chunks(double iterations, int threads, double min_chunk,
                                  const std::string& runtime);

}  // namespace ompscale::regions::report

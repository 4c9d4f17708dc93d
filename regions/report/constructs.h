#pragma once
// The constructs inside a parallel region, each with its own row: a solver that is one parallel
// region with many worksharing loops is otherwise one row (docs/ompscan-report.md,
// "Constructs"). Each construct is a worksharing construct with the barrier that ends it, a
// standalone barrier, a taskwait or taskgroup, or the region's end barrier; its costs are
// per-thread means over the region's threads, scaled like the region's sums.

#include <string>
#include <vector>

#include "regions/report/read_runs.h"

namespace ompscale::regions::report {

struct ConstructCosts {
  std::string kind;   ///< loop, single, sections, taskloop, barrier, taskwait, taskgroup, end
  std::string label;  ///< "loop at mandel.c:42": unique inside the region
  Location location;
  std::string schedule;  ///< loops: as the runtime reported it
  /// The runtime reported a code address inside itself (a tail call ending the region body):
  /// `location` is the region's.
  bool runtime_reported = false;
  double executions = 0.0;  ///< of the busiest thread, scaled
  /// Loops: iterations of one execution (the runtime's trip count); 0 when not reported.
  double iterations = 0.0;
  /// Per thread number (s, scaled sums, not means): time inside the construct and wait at its
  /// barrier before the last arrival; the loop's price needs each thread's.
  std::vector<double> thread_time;
  std::vector<double> thread_imbalance;
  /// Per thread number: the median of its thread_time over the point's repetitions (empty before
  /// they are combined). A static schedule gives a thread the same iterations in every
  /// repetition, so its own imbalance repeats, while a core slowed for a while (shared, or
  /// slower than the other) slows one thread in one repetition and another in the next: a
  /// static loop's price takes each thread's work from here, and an imbalance that a slow core
  /// made in a minority of the repetitions is not priced as the loop's own.
  std::vector<double> thread_time_median;
  // Per-thread means (s), scaled.
  double time = 0.0;  ///< inside the worksharing construct
  double imbalance = 0.0;
  double walkthrough = 0.0;
  double startup = 0.0;
  double task_wait = 0.0;

  /// Time in the construct and its barrier.
  double total() const { return time + imbalance + walkthrough + startup + task_wait; }
};

/// One run's constructs of `region`, sums times `scale`, per-thread means over `team` threads.
/// A barrier at the same source line as a worksharing construct joins it (a GCC single reports
/// its executor only: the others' barrier comes alone), as do sites with equal labels.
std::vector<ConstructCosts> construct_costs(const RegionRecord& region, double scale, double team);

/// Adds `c`'s numbers to the construct of the same label in `into` (appended when new).
void add_constructs(std::vector<ConstructCosts>& into, const std::vector<ConstructCosts>& c);

/// Divides every number by `n` (means over repetitions).
void divide_constructs(std::vector<ConstructCosts>& constructs, double n);

/// Sets each construct's thread_time_median: per thread, the median thread_time of the construct
/// of the same label in `repetitions` (each one run's constructs), over the runs that have it.
void set_median_times(std::vector<ConstructCosts>& combined,
                      const std::vector<const std::vector<ConstructCosts>*>& repetitions);

}  // namespace ompscale::regions::report

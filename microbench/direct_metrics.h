#pragma once
// The direct method's metrics of one round of a team-creating construct (parallel, reduction,
// the data environment...), from stamps already on the master's clock, and whether the round is
// possible at all.

#include <span>

namespace ompscale::microbench {

struct TeamCreatingMetrics {
  // Ticks since the master's stamp before the region.
  double fork_avg = 0;  // mean over threads of their first stamp inside
  double fork_max = 0;
  double join = 0;   // the master's stamp after the region - the last thread's end
  double total = 0;  // the master's stamp after the region
  double min_cost = 0;
  double avg_cost = 0;  // mean over threads of their end stamp
  double max_cost = 0;
  /// False when a stamp lies outside the region by more than the offsets' uncertainty: a thread
  /// ended after the master had passed the join (max_cost > total), or entered before the fork
  /// began. No region runs that way: the offsets did not hold for this round (a clock stepped or
  /// was read across a preemption), so its values are not measurements of the construct.
  bool consistent = true;
};

/// `first[tid]` and `end[tid]`: each thread's first and last stamp inside the region; `after`:
/// the master's stamp after it; all in ticks since the master's stamp before it. `tolerance`:
/// how far (ticks) the offsets may misplace a stamp. `first` and `end` are not empty.
TeamCreatingMetrics team_creating_metrics(std::span<const double> first,
                                          std::span<const double> end, double after,
                                          double tolerance);

}  // namespace ompscale::microbench

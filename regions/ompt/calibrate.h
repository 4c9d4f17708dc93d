#pragma once
// A region's sampled statistics calibrated to the totals the tool knows exactly: every
// execution's wall time and count, measured or not (sampling.h). Pure arithmetic on RegionStats,
// at profile time.

#include <cstdint>

#include "regions/ompt/aggregate.h"

namespace ompscale::regions::ompt {

/// `stats` calibrated to its region's exact totals over every execution, measured or not: its
/// wall time `all_wall_ticks` and its executions `all_executions` (the ratio estimator of survey
/// sampling). The estimated time sums, and the counts that grow with an execution's size (lock
/// acquisitions, loop iterations, tasks), are multiplied by all_wall_ticks / wall_ticks (kept as
/// `calibration`), so the region's time is exact and only its split uncertain
/// (split.variance(calibration)); the counts of once-per-execution events (barriers, loop and
/// masked executions) by all_executions / estimated_executions. The
/// counts and raw sums of what was measured (measured executions, timed lock acquisitions and
/// their waits and holds) stay as they are.
RegionStats calibrated(const RegionStats& stats, std::uint64_t all_wall_ticks,
                       std::uint64_t all_executions);

}  // namespace ompscale::regions::ompt

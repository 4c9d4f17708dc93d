#pragma once
// Which configurations one worker process measures in a round: those of one setting (runtime,
// binding, places) and one team size. A process keeps a single team size because a runtime's
// threads from a team of another size disturb the next team: libomp's idle pool threads keep
// spinning (KMP_BLOCKTIME) where a smaller spread team's threads are then placed, and libgomp,
// given alternating place sets, slowed every barrier of a 3-, 5- or 6-thread spread team on 16
// cores by microseconds. EPCC likewise runs each thread count as a process of its own.

#include <cstddef>
#include <vector>

#include "microbench/driver/plan.h"

namespace ompscale::microbench {

struct WorkerGroup {
  int setting = 0;  // index into Plan::settings
  int threads = 0;
  std::vector<std::size_t> members;  // indices into Plan::configs, in the order given
};

/// The configurations `pending` (indices into plan.configs) grouped by setting and team size,
/// ordered by setting, then team size.
std::vector<WorkerGroup> group_by_worker(const Plan& plan, const std::vector<std::size_t>& pending);

}  // namespace ompscale::microbench

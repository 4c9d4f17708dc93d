#pragma once
// A run's identity in results files and histories. Runs started together (a Slurm array's tasks
// on one node, a nightly measuring two runtime builds, interleaved runs) must not share an id, and
// nothing coordinates them: the id is the start second, readable and sortable, followed by
// random bits (as a UUID's uniqueness rests on its random bits).

#include <string>
#include <string_view>

namespace ompscale::microbench {

/// "r20261128T181303Z-9f3a1c4e": "r", the UTC second `stamp` (ISO 8601, as utc_timestamp()
/// gives it) without '-' and ':', and 32 random bits as 8 hex digits. Two runs collide with a
/// probability of about 1 in 4 billion per pair started in the same second on one host.
std::string new_run_id(std::string_view stamp);

}  // namespace ompscale::microbench

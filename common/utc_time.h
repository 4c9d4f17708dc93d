#pragma once
// Wall-clock stamps for files that record when something ran (CSV rows, sidecars, run files).

#include <ctime>
#include <string>

namespace ompscale {

/// Now, as ISO 8601 UTC with seconds: "2026-11-22T01:02:03Z".
std::string utc_timestamp();
/// `time` (seconds since the epoch) in the same form.
std::string utc_timestamp(std::time_t time);

}  // namespace ompscale

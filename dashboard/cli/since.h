#pragma once
// The dates a person gives `ompdash regressions --since`: the forms typed at a shell ("yesterday",
// "7d") and ISO 8601, turned into the ISO 8601 UTC prefix the history's dates are compared with.
// Anything else is refused: a date that is silently not understood would judge no run, and a
// cron job with --fail-on-regression would then pass every regression.

#include <ctime>
#include <string>
#include <string_view>

namespace ompscale::dashboard {

/// `text` as an ISO 8601 UTC date or stamp, given the time `now`:
///   ""                       "" (the caller's default: the latest run's date)
///   "today", "yesterday"     "2026-11-28", "2026-11-27" (the whole UTC day)
///   "7d", "12h"              now minus 7 days or 12 hours, "2026-11-21T18:13:03Z"
///   "2026-11-01"             itself
///   "2026-11-01T06:00[:00][Z]"  "2026-11-01T06:00:00Z"
/// UsageError naming `option` and the accepted forms for anything else (also a date that does
/// not exist, such as 2026-02-30).
std::string resolve_since(std::string_view text, std::time_t now,
                          std::string_view option = "--since");

}  // namespace ompscale::dashboard

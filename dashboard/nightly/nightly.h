#pragma once
// `ompdash nightly --config FILE`: one night of a runtime's history, cron- and CI-friendly.
//   1. ompbench: the configured sweep (with --runtime-lib builds), into NIGHT/results.csv; the
//      build it measured kept in NIGHT/build/ and NIGHT/build.json (confirm/runtime_build.h)
//   2. modeler fit: NIGHT/models.json
//   3. ompscan run and report per configured application: NIGHT/<name>-report.json
//   4. ingest all of it into the history (one transaction)
//   5. the night's regressions measured again, the previous night's build against tonight's,
//      round by round (confirm/ab_test.h; NIGHT/ab/), stored in the history
//   6. render the site
//   7. the night's regressions with their A/B on stdout (and NIGHT/regressions.json)
// NIGHT is a new directory under the configuration's `work`; every tool's output goes to
// NIGHT/log.txt. Exit status: 0, 1 when a regression fails the night (its A/B confirmed it, or
// none could measure it again) and the configuration asks to fail on them, 2 when a step failed
// (its log named).

#include <ostream>
#include <string>

#include "dashboard/nightly/config.h"

namespace ompscale::dashboard {

int run_nightly(const NightlyConfig& config, std::ostream& out);

}  // namespace ompscale::dashboard

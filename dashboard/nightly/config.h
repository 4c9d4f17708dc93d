#pragma once
// The nightly configuration (`ompdash nightly --config FILE`, docs/ompdash.md, "Nightly"): JSON
// naming the history, the site, a working directory, the ompbench sweep (its arguments, runtime
// builds and environment), the modeler's fit, optional applications for ompscan, and how the
// night ends (regressions, exit status).
//
//   {"db": "history.sqlite", "site": "site", "work": "nights", "label": "libomp-main",
//    "ompbench": {"args": ["--suite", "sync", "--threads", "1,2,4"],
//                 "runtime_lib": ["llvm=/opt/llvm/lib/libomp.so"],
//                 "environment": {"KMP_BLOCKTIME": "0"}},
//    "fit": {"args": ["--where", "metric=avg_cost"]},
//    "applications": [{"name": "mandel", "args": ["--threads", "1,2", "--", "./mandel", "800"]}],
//    "regressions": {"fail_on_regression": true, "threshold": 0.05, "significance": 0.01},
//    "confirm": {"rounds": 10, "reps": 20,
//                "previous": {"name": "libomp 14", "runtime_lib":
//                ["llvm=/opt/llvm-14/libomp.so"]}},
//    "tools": {"ompbench": "/opt/ompscale/bin/ompbench"}}
//
// Relative paths are relative to the configuration file's directory.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dashboard/analysis/regressions.h"
#include "dashboard/confirm/runtime_build.h"

namespace ompscale::dashboard {

struct ApplicationStep {
  std::string name;               ///< the application's name in the history
  std::vector<std::string> args;  ///< `ompscan run` arguments (without -o)
};

/// The A/B confirmation of the night's regressions (confirm/ab_test.h).
struct ConfirmConfig {
  bool enabled = true;
  std::size_t rounds = 10;  ///< round pairs in one machine state
  int reps = 20;            ///< repetitions per build and round
  /// The build tonight's is compared with; default: the one the latest earlier night kept.
  std::optional<RuntimeBuild> previous;
};

struct NightlyConfig {
  std::string db;    ///< history database
  std::string site;  ///< site directory ("" = no site)
  std::string work;  ///< one subdirectory per night holds its results, models and logs
  std::string label;
  std::vector<std::string> ompbench_args;
  std::vector<std::string> runtime_libs;           ///< --runtime-lib values
  std::map<std::string, std::string> environment;  ///< for ompbench and the applications
  std::vector<std::string> fit_args;
  std::vector<ApplicationStep> applications;
  bool fail_on_regression = false;
  RegressionOptions regressions;
  ConfirmConfig confirm;
  std::map<std::string, std::string> tools;  ///< ompbench, modeler, ompscan: explicit paths
};

/// Reads `path`. InputError naming the file and the field for anything malformed.
NightlyConfig read_nightly_config(const std::string& path);

/// The configuration in `text`, read as the file `path` (relative paths are relative to its
/// directory). InputError naming the file and the field for anything malformed.
NightlyConfig parse_nightly_config(std::string_view text, const std::string& path);

}  // namespace ompscale::dashboard

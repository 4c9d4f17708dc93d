#pragma once
// One function per `ompdash` subcommand, each with its arguments as CLI11 fills them. They
// throw InputError / UsageError / std::runtime_error; cli.cc turns those into exit status 2.

#include <string>
#include <vector>

#include "dashboard/analysis/regressions.h"
#include "dashboard/confirm/ab_test.h"
#include "dashboard/ingest/ingest.h"
#include "dashboard/store/retention.h"

namespace ompscale::dashboard {

struct IngestArguments {
  std::vector<std::string> files;
  std::string db;
  IngestOptions options;
};
/// Prints one line per input (added or already present) on stdout.
int run_ingest(const IngestArguments& a);

struct ListArguments {
  std::string db;
  std::string what = "all";  ///< runs, kernels, models, apps, ab or all
  std::string format = "text";
};
int run_list(const ListArguments& a);

struct RegressionsArguments {
  std::string db;
  RegressionOptions options;
  std::string format = "text";
  std::string output;
  bool fail_on_regression = false;
  bool noise = false;  ///< list every kernel's noise floor (text)
};
/// Exit status 1 when asked to fail and a regression was found.
int run_regressions(const RegressionsArguments& a);
/// UsageError for a threshold below 0, a significance outside (0, 1), fewer than 1 baseline run or
/// a minimal segment below 2.
void check_regression_options(const RegressionOptions& options);

struct RenderArguments {
  std::string db;
  std::string out;
  RegressionOptions options;
  bool full = false;  ///< write every page, changed or not
};
int run_render(const RenderArguments& a);

struct DeriveArguments {
  std::string db;
  RegressionOptions options;
  bool fresh = false;  ///< from the repetitions and documents, reusing nothing stored
};
/// Derives the history's analysis anew and stores it with these options (they become the
/// history's: later ingests derive with them).
int run_derive(const DeriveArguments& a);

struct PruneArguments {
  std::string db;
  RetentionRule rule;
  bool vacuum = false;
};
/// The retention rule for repetitions (store/retention.h).
int run_prune(const PruneArguments& a);

struct NightlyArguments {
  std::string config;
};
int run_nightly_command(const NightlyArguments& a);

struct ConfirmArguments {
  std::string db;
  std::string label;
  RuntimeBuild old_build, new_build;
  std::string old_build_file, new_build_file;  ///< build.json of a night (the nightly keeps one)
  std::vector<std::string> old_env, new_env;   ///< NAME=VALUE
  std::vector<std::string> constructs;         ///< kernels to measure; none: the findings
  std::vector<int> threads;
  std::string runtime;  ///< libgomp or libomp, with constructs
  std::string since;    ///< the findings dated on or after this (default: the last night)
  AbOptions options;
  std::vector<std::string> ompbench_args;
  bool fail_on_regression = false;
};
/// `ompdash confirm`: an A/B of two builds on the named kernels or on the findings' kernels,
/// stored in the history. Exit status 1 with --fail-on-regression when a kernel is slower.
int run_confirm(const ConfirmArguments& a);

}  // namespace ompscale::dashboard

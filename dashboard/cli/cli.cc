#include "dashboard/cli/cli.h"

#include <CLI/CLI.hpp>
#include <iostream>

#include "common/cli_help.h"
#include "common/error.h"
#include "dashboard/cli/commands.h"

namespace ompscale::dashboard {

namespace {

CLI::App* add_ingest(CLI::App& app, IngestArguments& a) {
  CLI::App* cmd = app.add_subcommand(
      "ingest", "Add ompbench results (with their sidecar), models.json and ompscan reports");
  cmd->add_option("files", a.files, "Results CSV, models.json or ompscan report JSON files")
      ->required();
  cmd->add_option("--db", a.db, "History database (created when missing)")->required();
  cmd->add_option("--label", a.options.label, "Label stored with everything ingested");
  cmd->add_option("--application", a.options.reports.application,
                  "Application name of ompscan reports (default: their executable)");
  cmd->add_option("--date", a.options.reports.date,
                  "Date of ompscan reports and of results that carry none (EPCC imports), ISO "
                  "8601 UTC (default: from the report's run files, the results file's time)");
  return cmd;
}

CLI::App* add_list(CLI::App& app, ListArguments& a) {
  CLI::App* cmd = app.add_subcommand("list", "The runs, kernels, model sets and applications");
  cmd->add_option("--db", a.db, "History database")->required();
  cmd->add_option("--what", a.what, "runs, kernels, models, apps, ab (A/B comparisons) or all")
      ->capture_default_str();
  cmd->add_option("--format", a.format, "text or json")->capture_default_str();
  return cmd;
}

/// How findings are judged, shared by `regressions` and `derive` (which stores what regressions
/// reads, so both must take the same options).
void add_judgement_options(CLI::App& cmd, RegressionOptions& o) {
  cmd.add_option("--threshold", o.threshold,
                 "Practical threshold: smallest relative change reported")
      ->capture_default_str();
  cmd.add_option("--significance", o.significance, "Family-wise significance over all comparisons")
      ->capture_default_str();
  cmd.add_option("--baseline-runs", o.baseline_runs,
                 "Runs a run is compared with (since the last change point)")
      ->capture_default_str();
  cmd.add_option("--min-segment", o.min_segment,
                 "Smallest number of runs on each side of a change point")
      ->capture_default_str();
  cmd.add_option("--metrics", o.metrics, "Metrics judged (empty: all)")
      ->delimiter(',')
      ->capture_default_str();
}

CLI::App* add_regressions(CLI::App& app, RegressionsArguments& a) {
  CLI::App* cmd = app.add_subcommand(
      "regressions", "Regressions, steps, drifts and model changes, most severe first");
  cmd->add_option("--db", a.db, "History database")->required();
  cmd->add_option("--since", a.options.since,
                  "Judge runs and report findings dated on or after this: an ISO 8601 date or UTC "
                  "time, today, yesterday, 7d, 12h (default: the latest run's date)");
  cmd->add_option("--format", a.format, "text or json")->capture_default_str();
  cmd->add_option("-o,--output", a.output, "Output file (default: stdout)");
  cmd->add_flag("--fail-on-regression", a.fail_on_regression, "Exit 1 when a regression is found");
  add_judgement_options(*cmd, a.options);
  cmd->add_flag("--noise", a.noise, "List every judged kernel's noise floor (text)");
  return cmd;
}

CLI::App* add_render(CLI::App& app, RenderArguments& a) {
  CLI::App* cmd =
      app.add_subcommand("render", "The static site (self-contained HTML) of a history");
  cmd->add_option("--db", a.db, "History database")->required();
  cmd->add_option("--out", a.out, "Directory of the site (created when missing)")->required();
  cmd->add_option("--threshold", a.options.threshold, "Practical threshold of the findings shown")
      ->capture_default_str();
  cmd->add_option("--significance", a.options.significance, "Family-wise significance")
      ->capture_default_str();
  cmd->add_option("--metrics", a.options.metrics, "Metrics shown and judged (empty: all)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_flag("--full", a.full, "Write every page, also those whose content did not change");
  return cmd;
}

CLI::App* add_derive(CLI::App& app, DeriveArguments& a) {
  CLI::App* cmd = app.add_subcommand(
      "derive", "Derive the history's analysis anew and store it (ingest does this itself)");
  cmd->add_option("--db", a.db, "History database")->required();
  add_judgement_options(*cmd, a.options);
  cmd->add_flag("--fresh", a.fresh,
                "Recompute every rank test and model comparison instead of reusing stored ones");
  return cmd;
}

CLI::App* add_prune(CLI::App& app, PruneArguments& a) {
  CLI::App* cmd = app.add_subcommand(
      "prune", "Remove old repetitions (their summaries, tests and findings stay)");
  cmd->add_option("--db", a.db, "History database")->required();
  cmd->add_option("--older-than", a.rule.older_than_days,
                  "Days before the latest run: older runs lose their repetitions")
      ->capture_default_str();
  cmd->add_option("--keep-latest", a.rule.keep_latest,
                  "Latest runs per kernel and thread count that keep theirs whatever their age")
      ->capture_default_str();
  cmd->add_flag("--vacuum", a.vacuum, "Give the space back to the file system (VACUUM)");
  return cmd;
}

CLI::App* add_nightly(CLI::App& app, NightlyArguments& a) {
  CLI::App* cmd = app.add_subcommand(
      "nightly", "One night: sweep, fit, ingest, render, regressions (docs/ompdash.md)");
  cmd->add_option("--config", a.config, "Nightly configuration (JSON)")->required();
  return cmd;
}

void add_build_options(CLI::App& cmd, const std::string& which, RuntimeBuild& build,
                       std::string& file, std::vector<std::string>& env) {
  cmd.add_option("--" + which, build.runtime_libs,
                 "The " + which + " build's runtime library: gnu=PATH or llvm=PATH (repeatable)");
  cmd.add_option("--" + which + "-env", env,
                 "NAME=VALUE in the " + which + " build's environment (repeatable)");
  cmd.add_option("--" + which + "-name", build.name, "The " + which + " build's name");
  cmd.add_option("--" + which + "-build", file,
                 "The " + which + " build as a night kept it (NIGHT/build.json)");
}

CLI::App* add_confirm(CLI::App& app, ConfirmArguments& a) {
  CLI::App* cmd = app.add_subcommand(
      "confirm",
      "A/B of two runtime builds, round by round in one run, on the last night's regressions "
      "or on named kernels; stored in the history (docs/ompdash.md)");
  cmd->add_option("--db", a.db, "History database")->required();
  add_build_options(*cmd, "old", a.old_build, a.old_build_file, a.old_env);
  add_build_options(*cmd, "new", a.new_build, a.new_build_file, a.new_env);
  cmd->add_option("--construct", a.constructs, "Kernels to measure (default: the regressions)")
      ->delimiter(',');
  cmd->add_option("--threads", a.threads, "Their thread counts (default: every one measured)")
      ->delimiter(',');
  cmd->add_option("--runtime", a.runtime, "Their runtime: libgomp or libomp (default: both)");
  cmd->add_option("--since", a.since,
                  "The regressions dated on or after this (as regressions --since; default: the "
                  "last night)");
  cmd->add_option("--rounds", a.options.rounds, "Round pairs in one machine state")
      ->capture_default_str();
  cmd->add_option("--reps", a.options.reps, "Repetitions per build, kernel and round")
      ->capture_default_str();
  cmd->add_option("--threshold", a.options.threshold,
                  "Practical threshold: changes shown to be smaller are 'unchanged'")
      ->capture_default_str();
  cmd->add_option("--significance", a.options.significance,
                  "Family-wise significance over the kernels")
      ->capture_default_str();
  cmd->add_option("--ompbench-arg", a.ompbench_args,
                  "Passed to ompbench (--canary-store, --platform, --max-wait, ...; repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--label", a.label, "Label stored with the A/B");
  cmd->add_flag("--fail-on-regression", a.fail_on_regression,
                "Exit 1 when the new build is slower on a kernel");
  return cmd;
}

}  // namespace

int run_cli(int argc, char** argv) {
  CLI::App app{
      "ompdash: the history of OpenMP runtime scalability (ompbench runs, models, ompscan\n"
      "reports), its regressions and a static site."};
  app.require_subcommand(1);
  app.set_version_flag("--version", version_string());
  wrap_help(app);
  IngestArguments ingest;
  ListArguments list;
  CLI::App* ingest_cmd = add_ingest(app, ingest);
  CLI::App* list_cmd = add_list(app, list);
  RegressionsArguments regressions;
  CLI::App* regressions_cmd = add_regressions(app, regressions);
  RenderArguments render;
  CLI::App* render_cmd = add_render(app, render);
  NightlyArguments nightly;
  CLI::App* nightly_cmd = add_nightly(app, nightly);
  DeriveArguments derive;
  CLI::App* derive_cmd = add_derive(app, derive);
  PruneArguments prune;
  CLI::App* prune_cmd = add_prune(app, prune);
  ConfirmArguments confirm;
  CLI::App* confirm_cmd = add_confirm(app, confirm);
  if (const auto unknown = unknown_subcommand(app, argc, argv)) {
    std::cerr << "ompdash: " << *unknown << " (see ompdash --help)\n";
    return 2;
  }
  if (const auto status =
          parse_command_line(app, argc, argv, "ompdash", help_command("ompdash", app, argc, argv)))
    return *status;
  // InputError, UsageError, SQLite and file errors: one line, exit status 2.
  return run_reporting_errors(
      "ompdash",
      [&] {
        if (ingest_cmd->parsed()) return run_ingest(ingest);
        if (list_cmd->parsed()) return run_list(list);
        if (regressions_cmd->parsed()) return run_regressions(regressions);
        if (render_cmd->parsed()) return run_render(render);
        if (nightly_cmd->parsed()) return run_nightly_command(nightly);
        if (derive_cmd->parsed()) return run_derive(derive);
        if (prune_cmd->parsed()) return run_prune(prune);
        if (confirm_cmd->parsed()) return run_confirm(confirm);
        return 2;
      },
      2);
}

}  // namespace ompscale::dashboard

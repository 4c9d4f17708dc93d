#pragma once
// The `ompdash` command line: ingest, list, regressions, render, nightly, confirm. Kept in the
// library so tests run it in-process; tool/main.cc only forwards to it.

namespace ompscale::dashboard {

/// Runs the CLI; returns the exit status (0 success, 1 regressions found with
/// --fail-on-regression, 2 usage or input error with a one-line cause on stderr).
int run_cli(int argc, char** argv);

}  // namespace ompscale::dashboard

#pragma once
// The `ompscan` command line: `ompscan run ...` (regions/run/run_command.h) and
// `ompscan report ...` (regions/report/report_command.h). Each subcommand parses its own
// arguments (CLI11); this only dispatches, so tests can run either in-process.

namespace ompscale::regions {

/// Exit status: 0 success, 1 a requested failure condition, 2 usage or input error (one line on
/// stderr), 130 interrupted.
int run_cli(int argc, char** argv);

}  // namespace ompscale::regions

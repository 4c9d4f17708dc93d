#pragma once
// The `ompbench` command line: the sweep (no subcommand), `list`, `platform`, `import-epcc`.
// Kept in the library so tests can run it in-process; tool/main.cc only forwards to it.

namespace ompscale::microbench {

/// Runs the CLI; returns the exit status: 0 success, 1 a worker failed (other rows are kept),
/// 2 usage or input error (one line on stderr), 130 interrupted (the files are valid; the
/// command that resumes is printed).
int run_cli(int argc, char** argv);

}  // namespace ompscale::microbench

#pragma once
// The `modeler` command line: fit, plot, predict, compare. Kept in the library so tests can run
// it in-process; tool/main.cc only forwards to it.

namespace ompscale::modeler {

/// Runs the CLI; returns the exit status (0 success, 1 a requested failure condition, 2 usage or
/// input error with a one-line cause on stderr).
int run_cli(int argc, char** argv);

}  // namespace ompscale::modeler

#pragma once
// `ompscan run` once the command line is parsed: checks everything that can be checked before the
// first run (thread counts, the application, the tool, the GOMP ABI), then makes the planned runs
// that have no complete run file yet, one run file each, until done or interrupted.

#include <string>
#include <vector>

#include "regions/run/run_options.h"

namespace ompscale::regions {

/// Returns the exit status: 0 when every run was made (failed runs included: they are recorded),
/// 1 when every run made now failed, 130 when interrupted (SIGINT/SIGTERM; the completed run files
/// stay and the resume command is printed). Throws UsageError or InputError for what can be found
/// before the first run.
int run_sweep(const RunOptions& options);

/// The command line (the program as invoked first) quoted for a POSIX shell, without --force (so
/// that it resumes).
std::string resume_command(const std::vector<std::string>& command_line);

}  // namespace ompscale::regions

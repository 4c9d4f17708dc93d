#pragma once
// `ompscan run`: see docs/ompscan-run.md.

namespace ompscale::regions {

/// argv[0] is "run"; `program` is ompscan as it was invoked, for the resume command. Returns the
/// exit status (0, 1 when every run failed without leaving a profile, 2 usage/input error, 130
/// interrupted).
int run_command(int argc, char** argv, const char* program);

}  // namespace ompscale::regions

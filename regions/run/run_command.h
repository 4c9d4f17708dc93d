#pragma once
// `ompscan run`: see docs/ompscan-run.md.

namespace ompscale::regions {

/// argv[0] is "run". Returns the exit status (0, 2 usage/input error, 130 interrupted).
int run_command(int argc, char** argv);

}  // namespace ompscale::regions

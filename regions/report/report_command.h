#pragma once
// `ompscan report DIR`: see docs/ompscan-report.md.

namespace ompscale::regions {

/// argv[0] is "report". Returns the exit status (0, 2 usage/input error).
int report_command(int argc, char** argv);

}  // namespace ompscale::regions

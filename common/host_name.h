#pragma once
// The machine's name, for files that record where something ran and for per-machine state.

#include <string>

namespace ompscale {

/// gethostname(), "" when it fails.
std::string host_name();

}  // namespace ompscale

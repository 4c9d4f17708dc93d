#pragma once
// The machine's name and processor, for files that record where something ran and for
// per-machine state.

#include <string>

namespace ompscale {

/// gethostname(), "" when it fails.
std::string host_name();

/// The processor's "model name" of /proc/cpuinfo, "" when there is none.
std::string cpu_model();

}  // namespace ompscale

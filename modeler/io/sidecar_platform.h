#pragma once
// The machine an ompbench results file was measured on, from its sidecar (results.csv.meta.json,
// written by ompbench): each run records the platform hwloc detected. The modeler takes its
// topology boundaries from it when no --platform names the machine.

#include <optional>
#include <string>

#include "platforms/platform.h"

namespace ompscale::modeler {

/// The sidecar's path for results file `input`: `input` + ".meta.json".
std::string sidecar_path(const std::string& input);

/// The platform of the last run in `input`'s sidecar that records one; nullopt when there is no
/// sidecar or no run records a platform. A sidecar that is not valid JSON, or whose platform is
/// no valid description, is an InputError naming the sidecar, its line and the field.
std::optional<platforms::Platform> read_sidecar_platform(const std::string& input);

}  // namespace ompscale::modeler

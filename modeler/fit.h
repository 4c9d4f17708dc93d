#pragma once
// The modeler's entry points: a model (or one per thread-count class) for each kernel.

#include <vector>

#include "modeler/kernel.h"
#include "modeler/options.h"
#include "modeler/result.h"

namespace ompscale::modeler {

/// Models one kernel. Kernels with fewer than two points get a constant model and a warning.
KernelResult fit_kernel(const Kernel& kernel, const ModelerOptions& options);

/// Models every kernel, in parallel over kernels; results are in kernel order.
std::vector<KernelResult> fit_dataset(const Dataset& dataset, const ModelerOptions& options);

}  // namespace ompscale::modeler

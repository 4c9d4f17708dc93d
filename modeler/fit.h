#pragma once
// The modeler's entry points: a model (or one per thread-count class) for each kernel.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "modeler/core/kernel.h"
#include "modeler/core/result.h"
#include "modeler/presets/options.h"

namespace ompscale::modeler {

/// Models one kernel. A degenerate kernel (too few thread counts, unusable values) gets a
/// ClassModel that says why it has no model (ClassModel::no_model), never an exception or a crash.
KernelResult fit_kernel(const Kernel& kernel, const ModelerOptions& options);

/// Models every kernel, in parallel over kernels; results are in kernel order.
std::vector<KernelResult> fit_dataset(const Dataset& dataset, const ModelerOptions& options);

/// The same, streamed: each result is handed to `sink` in kernel order as soon as every kernel
/// before it is fitted, so a report can be built without holding every result at once. `format`
/// (may be empty) is called on each result by the thread that fitted it, inside the parallel loop
/// (it must be safe to call from several threads at once); its text goes to `sink` with the
/// result. One parallel region covers the whole dataset: threads do not wait for each other
/// between kernels, and whichever thread completes the next kernel in order calls `sink` (one
/// call at a time). An exception from `sink` stops further calls and is rethrown after the loop.
void fit_dataset(const Dataset& dataset, const ModelerOptions& options,
                 const std::function<std::string(const KernelResult&)>& format,
                 const std::function<void(KernelResult&&, std::string&&)>& sink);

}  // namespace ompscale::modeler

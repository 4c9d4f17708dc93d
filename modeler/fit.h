#pragma once
// The modeler's entry points: a model (or one per thread-count class) for each kernel.

#include <cstddef>
#include <functional>
#include <vector>

#include "modeler/kernel.h"
#include "modeler/options.h"
#include "modeler/result.h"

namespace ompscale::modeler {

/// Models one kernel. A degenerate kernel (too few thread counts, unusable values) gets a
/// ClassModel that says why it has no model (ClassModel::no_model), never an exception or a crash.
KernelResult fit_kernel(const Kernel& kernel, const ModelerOptions& options);

/// Models every kernel, in parallel over kernels; results are in kernel order.
std::vector<KernelResult> fit_dataset(const Dataset& dataset, const ModelerOptions& options);

/// The same, handing each result to `sink` in kernel order as soon as its chunk of `chunk`
/// kernels is fitted, so a report can be built without holding every result at once.
void fit_dataset(const Dataset& dataset, const ModelerOptions& options, std::size_t chunk,
                 const std::function<void(KernelResult&&)>& sink);

/// The same, with `prepare` called on each result inside the parallel loop, by the thread that
/// fitted it (formatting it, say), before `sink` receives the results in kernel order. `prepare`
/// must be safe to call from several threads at once.
void fit_dataset(const Dataset& dataset, const ModelerOptions& options, std::size_t chunk,
                 const std::function<void(const KernelResult&)>& prepare,
                 const std::function<void(KernelResult&&)>& sink);

}  // namespace ompscale::modeler

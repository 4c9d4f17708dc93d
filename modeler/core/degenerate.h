#pragma once
// Internal to the modeler: kernels the fit cannot model as they are (docs/methods.md, "Degenerate
// kernels"). Every such kernel gets a model or a stated reason for having none, never a crash:
// non-finite repetitions are left out with a warning, a kernel that is 0 everywhere is the
// constant 0, and too few thread counts or magnitudes the weights cannot hold give no model.

#include <cstddef>
#include <optional>
#include <string>

#include "modeler/core/kernel.h"
#include "modeler/core/points.h"
#include "modeler/core/result.h"

namespace ompscale::modeler {

/// Thread counts a model needs: with two, any growth law fits exactly and nothing judges it.
constexpr std::size_t kMinModelPoints = 3;

/// `kernel` without its NaN and infinite repetitions (thread counts left with none are dropped);
/// `dropped` is how many values were left out.
Kernel finite_part(const Kernel& kernel, std::size_t& dropped);

/// Why `p` cannot be modelled (too few points, non-finite aggregates, magnitudes whose squared
/// weights would overflow or underflow), or nothing when the fit can take it.
std::optional<std::string> why_no_model(const Points& p);

/// Removes the components of `predictive` that are not finite (coefficients, covariance, degrees
/// of freedom, noise: overflow in a fit of extreme values) and renormalises the weights; false
/// when none is left.
bool keep_finite_components(PredictiveDistribution& predictive);

/// A result without a model for `reason`: the points, NaN statistics, no predictions.
ClassModel no_model(const Points& p, std::string reason);

/// True when every aggregated value is 0: the model is exactly the constant 0.
bool all_zero(const Points& p);

/// The exact model 0 of a kernel whose every value is 0, with intervals [0, 0].
ClassModel zero_model(const Points& p);

}  // namespace ompscale::modeler

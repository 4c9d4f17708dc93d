#pragma once
// Budgets per kernel (docs/methods.md, "Budgets"): an absolute budget in the kernel's own unit, and
// what a relative budget ("--budget 4x") is relative to. The cost at the smallest thread count is
// often at the data's resolution (a barrier of one thread costs a clock tick or two), and 4x of
// that is exceeded at once. The base is the smallest thread count whose cost is resolved: at least
// kBaseResolutions times the resolution, the smallest step between two distinct repetitions of
// one thread count (steps between thread counts are the signal, not the resolution).

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "modeler/core/kernel.h"
#include "modeler/core/result.h"
#include "modeler/presets/options.h"

namespace ompscale::modeler {

/// How many resolution steps the base's cost must span: then it is known to 10% or better.
constexpr double kBaseResolutions = 10.0;

/// The smallest step between two distinct finite repetitions of one thread count of `kernel`; 0
/// (unknown) when no thread count has two distinct values.
double resolution_of(const Kernel& kernel);

/// The point of smallest thread count whose aggregated value is at least kBaseResolutions x
/// `resolution` (and positive); none when no point qualifies. `points` may come from several
/// classes of one kernel, in any order.
std::optional<PointSummary> relative_budget_base(std::span<const PointSummary> points,
                                                 double resolution);

/// The warning that replaces a relative budget ("4x") without a base: no thread count of the
/// kernel costs kBaseResolutions x `resolution` or more.
std::string unusable_relative_budget(double relative, double resolution);
/// Whether `warning` is one unusable_relative_budget() wrote.
bool is_unusable_budget_warning(const std::string& warning);

/// `budget` in the unit of `kernel` when it has a time unit ("10us" for a kernel in ns: 10000);
/// unchanged when the budget is relative or in the data's unit, or the data name no unit.
std::optional<BudgetSpec> budget_for_kernel(const Dataset& dataset, const Kernel& kernel,
                                            const std::optional<BudgetSpec>& budget);

/// The points of every class model of `result`, for relative_budget_base.
std::vector<PointSummary> all_points(const KernelResult& result);

}  // namespace ompscale::modeler

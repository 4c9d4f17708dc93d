#include "modeler/prediction/budget.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>

#include "modeler/core/units.h"

namespace ompscale::modeler {

double resolution_of(const Kernel& kernel) {
  // Within one thread count only: steps between thread counts are the signal, not the resolution.
  double step = 0.0;
  std::vector<double> values;
  for (std::size_t i = 0; i < kernel.size(); ++i) {
    values.clear();
    for (double v : kernel.repetitions(i)) {
      if (std::isfinite(v)) values.push_back(v);
    }
    std::sort(values.begin(), values.end());
    for (std::size_t k = 1; k < values.size(); ++k) {
      const double d = values[k] - values[k - 1];
      if (d > 0.0 && (step == 0.0 || d < step)) step = d;
    }
  }
  return step;
}

std::optional<PointSummary> relative_budget_base(std::span<const PointSummary> points,
                                                 double resolution) {
  std::optional<PointSummary> base;
  for (const PointSummary& p : points) {
    if (!(p.value > 0.0 && p.value >= kBaseResolutions * resolution)) continue;
    if (!base || p.param < base->param) base = p;
  }
  return base;
}

namespace {
constexpr std::string_view kUnusableBudget = "no budget ";
}  // namespace

std::string unusable_relative_budget(double relative, double resolution) {
  return fmt::format(
      "{}{:g}x: no thread count costs {:g} times the resolution ({:.3g}) or more, so nothing is "
      "measured well enough to be relative to",
      kUnusableBudget, relative, kBaseResolutions, resolution);
}

bool is_unusable_budget_warning(const std::string& warning) {
  return warning.starts_with(kUnusableBudget);
}

std::optional<BudgetSpec> budget_for_kernel(const Dataset& dataset, const Kernel& kernel,
                                            const std::optional<BudgetSpec>& budget) {
  if (!budget || budget->relative || budget->unit.empty()) return budget;
  const auto it = std::find(dataset.key_columns.begin(), dataset.key_columns.end(), "unit");
  if (it == dataset.key_columns.end()) return budget;
  const auto unit = kernel.key_value(static_cast<std::size_t>(it - dataset.key_columns.begin()));
  BudgetSpec converted = *budget;
  converted.value = convert_time(budget->value, budget->unit, unit);
  converted.unit = std::string(unit);
  return converted;
}

std::vector<PointSummary> all_points(const KernelResult& result) {
  std::vector<PointSummary> points;
  for (const ClassModel& m : result.models)
    points.insert(points.end(), m.points.begin(), m.points.end());
  return points;
}

}  // namespace ompscale::modeler

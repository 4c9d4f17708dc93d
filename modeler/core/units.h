#pragma once
// Time units and budgets as people write them: "10us", "2.5ms", "4x".

#include <string_view>

#include "modeler/presets/options.h"

namespace ompscale::modeler {

/// Seconds per unit for "s", "ms", "us" (also "µs"), "ns", "ps"; throws UsageError otherwise.
double seconds_per(std::string_view unit);
/// value in `from` expressed in `to`.
double convert_time(double value, std::string_view from, std::string_view to);
/// "10us" -> {10, absolute, "us"}; "4x" -> {4, relative}; "0.5" -> {0.5, absolute, data unit}.
/// Throws UsageError with the accepted forms.
BudgetSpec parse_budget(std::string_view text);

}  // namespace ompscale::modeler

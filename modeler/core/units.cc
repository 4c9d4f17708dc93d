#include "modeler/core/units.h"

#include <fmt/format.h>

#include <optional>
#include <string>

#include "common/error.h"
#include "common/text.h"

namespace ompscale::modeler {

double seconds_per(std::string_view unit) {
  if (unit == "s") return 1.0;
  if (unit == "ms") return 1e-3;
  if (unit == "us" || unit == "\u00b5s") return 1e-6;
  if (unit == "ns") return 1e-9;
  if (unit == "ps") return 1e-12;
  throw UsageError(fmt::format("unknown time unit '{}': use s, ms, us, ns or ps", unit));
}

double convert_time(double value, std::string_view from, std::string_view to) {
  if (from == to) return value;
  return value * seconds_per(from) / seconds_per(to);
}

BudgetSpec parse_budget(std::string_view text) {
  BudgetSpec budget;
  const std::optional<LeadingNumber> number = parse_leading_double(text);
  const auto fail = [&] {
    return UsageError(fmt::format(
        "bad budget '{}': expected a positive cost such as 10us, 2.5ms or 0.3 (in the data's "
        "unit), or a factor of the cost at the smallest thread count such as 4x",
        text));
  };
  if (!number || !(number->value > 0.0)) throw fail();
  budget.value = number->value;
  const std::string_view suffix = number->rest;
  if (suffix == "x") {
    budget.relative = true;
  } else if (!suffix.empty()) {
    try {
      seconds_per(suffix);
    } catch (const UsageError&) {
      throw fail();
    }
    budget.unit = std::string(suffix);
  }
  return budget;
}

}  // namespace ompscale::modeler

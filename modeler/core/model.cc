#include "modeler/core/model.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "modeler/multi/multi_model.h"

namespace ompscale::modeler {

double TermShape::evaluate(double t) const {
  double v = exponent == 0.0 ? 1.0 : std::pow(t, exponent);
  if (log_exponent != 0) v *= std::pow(std::log2(t), log_exponent);
  return v;
}

std::string_view to_string(GrowthClass growth) {
  switch (growth) {
    case GrowthClass::kDecreasing:
      return "decreasing";
    case GrowthClass::kConstant:
      return "constant";
    case GrowthClass::kLogarithmic:
      return "logarithmic";
    case GrowthClass::kSublinear:
      return "sublinear";
    case GrowthClass::kLinear:
      return "linear";
    case GrowthClass::kSuperlinear:
      return "superlinear";
  }
  return "unknown";
}

double Model::evaluate(double t) const {
  double v = constant;
  for (const Term& term : terms) v += term.coefficient * term.shape.evaluate(t);
  return v;
}

const Term* Model::leading_term() const {
  const Term* best = nullptr;
  for (const Term& term : terms) {
    if (term.coefficient == 0.0) continue;
    if (best == nullptr || term.shape.exponent > best->shape.exponent ||
        (term.shape.exponent == best->shape.exponent &&
         term.shape.log_exponent > best->shape.log_exponent)) {
      best = &term;
    }
  }
  return best;
}

GrowthClass Model::growth() const {
  const Term* lead = leading_term();
  if (lead == nullptr) return GrowthClass::kConstant;
  const TermShape& s = lead->shape;
  if (s.exponent < 0.0 || (s.exponent == 0.0 && s.log_exponent == 0)) {
    return s.exponent < 0.0 ? GrowthClass::kDecreasing : GrowthClass::kConstant;
  }
  if (lead->coefficient < 0.0) return GrowthClass::kDecreasing;
  if (s.exponent == 0.0) return GrowthClass::kLogarithmic;
  if (s.exponent < 1.0) return GrowthClass::kSublinear;
  if (s.exponent == 1.0 && s.log_exponent == 0) return GrowthClass::kLinear;
  return GrowthClass::kSuperlinear;
}

bool Model::grows_faster_than_log() const {
  const Term* lead = leading_term();
  return lead != nullptr && lead->coefficient > 0.0 && lead->shape.exponent > 0.0;
}

std::string format_exponent(double exponent) {
  for (int den = 1; den <= 12; ++den) {
    const double num = exponent * den;
    const double rounded = std::round(num);
    if (std::fabs(num - rounded) < 1e-9 * std::max(1.0, std::fabs(num))) {
      const auto n = static_cast<long>(rounded);
      const long g = std::gcd(std::labs(n), static_cast<long>(den));
      if (den / g == 1) return fmt::format("{}", n / g);
      return fmt::format("{}/{}", n / g, den / g);
    }
  }
  return fmt::format("{:.4g}", exponent);  // refined exponents: 4 digits say enough
}

std::string Model::to_string(std::string_view parameter, int digits) const {
  std::string out = fmt::format("{:.{}g}", constant, digits);
  for (const Term& term : terms) {
    const double c = term.coefficient;
    out += fmt::format(" {} {:.{}g}", c < 0 ? '-' : '+', std::fabs(c), digits);
    if (term.shape.exponent != 0.0) {
      out += fmt::format(" * {}^({})", parameter, format_exponent(term.shape.exponent));
    }
    if (term.shape.log_exponent != 0) {
      out += fmt::format(" * log2({})^({})", parameter, term.shape.log_exponent);
    }
  }
  return out;
}

Model parse_model(std::string_view text) {
  const MultiModel parsed = parse_multi_model(text, {});
  Model model;
  model.constant = parsed.constant;
  for (const MultiTerm& term : parsed.terms) {
    model.terms.push_back({term.coefficient, term.factors.front().shape});
  }
  return model;
}

}  // namespace ompscale::modeler

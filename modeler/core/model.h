#pragma once
// A performance model in the performance model normal form (PMNF):
//   f(t) = c0 + sum_k c_k * t^(i_k) * log2(t)^(j_k)
// with rational i_k (continuous after refinement) and integer j_k.

#include <string>
#include <string_view>
#include <vector>

namespace ompscale::modeler {

/// The shape of one term without its coefficient: t^exponent * log2(t)^log_exponent.
struct TermShape {
  double exponent = 0.0;  ///< i; may be negative for strong-scaling hypotheses.
  int log_exponent = 0;   ///< j >= 0.

  /// t^i * log2(t)^j; log2(t)^0 is 1 for every t (also t = 1).
  double evaluate(double t) const;
  bool operator==(const TermShape&) const = default;
};

/// One term of a model: coefficient * shape.
struct Term {
  double coefficient = 0.0;
  TermShape shape;
};

/// Growth of a model's leading (fastest-growing) term, from best to worst scaling.
enum class GrowthClass {
  kDecreasing,   ///< leading term shrinks as t grows (negative exponent or coefficient)
  kConstant,     ///< no term besides the constant
  kLogarithmic,  ///< log2(t)^j only
  kSublinear,    ///< t^i with 0 < i < 1
  kLinear,       ///< t^1 (times logs: reported as superlinear)
  kSuperlinear,  ///< t^i * log^j with i > 1, or i = 1 and j > 0
};
std::string_view to_string(GrowthClass growth);

struct Model {
  double constant = 0.0;
  std::vector<Term> terms;

  double evaluate(double t) const;
  /// Term with the largest growth (highest exponent, then highest log exponent); nullptr when
  /// the model is constant.
  const Term* leading_term() const;
  GrowthClass growth() const;
  /// True when the leading term grows faster than any power of log2(t): the paper's flag for
  /// "significantly worse than logarithmic".
  bool grows_faster_than_log() const;

  /// Extra-P notation, exponents as fractions where they are simple ones:
  /// "0.12 + 3.4 * t^(3/2) * log2(t)^(1)". `digits` significant digits per coefficient.
  std::string to_string(std::string_view parameter = "t", int digits = 6) const;
};

/// "3/2" for 1.5, "1" for 1.0, "-1/2", or 4 significant digits when the value
/// is not a fraction with denominator <= 12.
std::string format_exponent(double exponent);

/// Parses a model in Extra-P notation, as Extra-P prints it ("-0.88 + 0.20 * x^(2)",
/// "4.7 + 2.5 * t^(0.25) * log2(t)^(1)", "1.2 + 3 * log2(p)^(2)") or as to_string() writes it.
/// Throws std::invalid_argument naming the offending part.
Model parse_model(std::string_view text);

}  // namespace ompscale::modeler

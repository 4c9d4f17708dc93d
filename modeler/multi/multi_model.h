#pragma once
// A performance model over several parameters (Extra-P's multi-parameter PMNF):
//   f(x) = c0 + sum_k c_k * prod_{p in term k} x_p^(i_kp) * log2(x_p)^(j_kp)
// e.g. "1.37 + 6.7 * log2(y)^(1) + 0.044 * x^(3/2) * log2(x)^(2) * log2(y)^(1)".

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "modeler/core/model.h"

namespace ompscale::modeler {

/// One parameter's part of a term: x_p^i * log2(x_p)^j.
struct Factor {
  std::size_t parameter = 0;  ///< index into the parameter names
  TermShape shape;
  bool operator==(const Factor&) const = default;
};

/// coefficient * the product of its factors (at most one per parameter, in parameter order).
struct MultiTerm {
  double coefficient = 0.0;
  std::vector<Factor> factors;
  double evaluate(std::span<const double> x) const;
  /// The factors' product at x, without the coefficient.
  double shape_at(std::span<const double> x) const;
};

struct MultiModel {
  double constant = 0.0;
  std::vector<MultiTerm> terms;

  double evaluate(std::span<const double> x) const;
  /// The parameters some term depends on, ascending.
  std::vector<std::size_t> parameters_used() const;
  /// Extra-P notation with the given parameter names; `digits` significant digits.
  std::string to_string(const std::vector<std::string>& names, int digits = 6) const;
  /// The model along one parameter with the others fixed at `x` (x[p] is ignored): a
  /// single-parameter model whose terms keep their shapes in parameter p and fold the other
  /// factors into the coefficients. Terms without parameter p join the constant.
  Model along(std::size_t p, std::span<const double> x) const;
};

/// Parses Extra-P notation over the named parameters ("2 + 0.88 * log2(p)^(1) * s^(1)"); with no
/// names, every name is the one parameter 0. Throws std::invalid_argument naming the offending
/// part (also for an unknown parameter).
MultiModel parse_multi_model(std::string_view text, const std::vector<std::string>& names);

}  // namespace ompscale::modeler

#pragma once
// Models over two parameters, e.g. region time over thread count t and input size n, in the
// manner of Extra-P's multi-parameter modeler (docs/ompscan-report.md, "Models over threads and
// input size"):
//
//   1. Slices. For every value of n with enough distinct t, the single-parameter modeler
//   (fit_kernel)
//      models the time over t; likewise over n at every t. Each non-constant slice model proposes
//      its leading term: f(t) = t^i log2(t)^j, g(n) = n^k log2(n)^l.
//   2. Hypotheses. Every proposed f and g (and their absence) is combined as
//        c0                          constant
//        c0 + a f                    first parameter only
//        c0 + b g                    second parameter only
//        c0 + c f g                  multiplicative
//        c0 + a f + b g              additive
//        c0 + a f + c f g            product plus f
//        c0 + b g + c f g            product plus g
//        c0 + a f + b g + c f g      both (Extra-P tries this one only for three parameters)
//      with coefficients by weighted least squares (weights 1 / y^2: every point counts by its
//      relative error, as times span decades) on all aggregated points.
//   3. Selection. Hypotheses with a term that contributes less than `min_term_contribution` of the
//      measured value at every point are dropped (Extra-P's epsilon rule). Each remaining one has
//      a leave-one-out SMAPE (the mean of its held-out points' SMAPE terms) and that mean's
//      standard error. Of the hypotheses within one standard error of the lowest, the one with
//      the fewest coefficients wins (the one-standard-error rule of cross-validation): a term
//      must improve the held-out error by more than its noise to be kept.
//
// Differences from Extra-P 4.2.5 (multi_parameter_modeler.py): Extra-P fits one single-parameter
// model per parameter on the mean of the longest slices and keeps its first term; here every
// slice is modeled and every distinct leading term competes. Extra-P tries the last combination
// only for three parameters. Extra-P selects by in-sample SMAPE (or RSS) and fits unweighted;
// here selection is by leave-one-out SMAPE with the one-standard-error rule and fits are
// weighted by relative error.

#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "modeler/core/model.h"
#include "modeler/core/result.h"
#include "modeler/presets/options.h"

namespace ompscale::modeler {

/// One measured value (one repetition) at (first, second).
struct Sample2 {
  double first = 0.0;
  double second = 0.0;
  double value = 0.0;
};

/// How a two-parameter model combines f(first) and g(second); see the file comment.
enum class Combination {
  kConstant,
  kFirstOnly,
  kSecondOnly,
  kMultiplicative,
  kAdditive,
  kProductPlusFirst,
  kProductPlusSecond,
  kFull,
};
/// "constant", "first only", "second only", "multiplicative", "additive", "product + first",
/// "product + second", "additive + multiplicative".
std::string_view to_string(Combination combination);

/// c0 + a f(x1) + b g(x2) + c f(x1) g(x2), with the coefficients the combination does not use at 0.
struct TwoParameterModel {
  Combination combination = Combination::kConstant;
  double constant = 0.0;
  TermShape first;                   ///< f, when the combination has it
  TermShape second;                  ///< g, when the combination has it
  double first_coefficient = 0.0;    ///< a
  double second_coefficient = 0.0;   ///< b
  double product_coefficient = 0.0;  ///< c

  bool uses_first() const;
  bool uses_second() const;
  double evaluate(double x1, double x2) const;
  /// Extra-P notation, e.g. "2 + 0.5 * t^(1) * log2(n)^(1)"; `digits` significant digits.
  std::string to_string(std::string_view first_name, std::string_view second_name,
                        int digits = 6) const;
};

/// The single-parameter model of one slice.
struct SliceModel {
  int parameter = 0;   ///< 0: a model over the first parameter, 1: over the second
  double fixed = 0.0;  ///< the other parameter's value on this slice
  Model model;
};

/// One hypothesis as tried.
struct TwoParameterCandidate {
  TwoParameterModel model;
  double cv_smape = std::numeric_limits<double>::infinity();  ///< leave-one-out SMAPE, percent
  bool negligible_term = false;  ///< dropped by the term contribution rule
};

struct TwoParameterOptions {
  std::string first_name = "t";
  std::string second_name = "n";
  /// Single-parameter modeling of the slices over each parameter (hypothesis space, selection).
  /// Default: the modeler's default preset; region times over threads want
  /// HypothesisSpace::paper().with_negative_exponents() for the first.
  ModelerOptions first_options;
  ModelerOptions second_options;
  /// How the repetitions at one point become one value, for the slices and the combined fit
  /// (overrides the aggregation of first_options and second_options). Default: mean, as Extra-P.
  Aggregation aggregation = Aggregation::kMean;
  /// A hypothesis is dropped when one of its terms is below this fraction of the measured value
  /// at every point (Extra-P: 0.0005).
  double min_term_contribution = 0.0005;
  /// The simplest hypothesis whose leave-one-out SMAPE is within this many standard errors of
  /// the lowest wins (default 1: the one-standard-error rule).
  double standard_errors = 1.0;
  /// Distinct values of a slice's own parameter needed to model the slice (at least 3: a term
  /// plus a constant must leave one degree of freedom).
  std::size_t min_slice_points = 3;
};

struct TwoParameterResult {
  TwoParameterModel model;
  /// In-sample RSS, SMAPE and adjusted R^2 of the chosen model over the aggregated points;
  /// cv_error is its leave-one-out SMAPE; points is their number.
  FitStatistics stats;
  std::vector<SliceModel> slices;
  /// Every hypothesis tried, in the order tried (fewest coefficients first).
  std::vector<TwoParameterCandidate> candidates;
  /// Why a parameter got no term although it varies, and similar.
  std::vector<std::string> warnings;
};

/// Models `samples`. Parameters must be positive. With no samples the model is the constant 0
/// and a warning says so.
TwoParameterResult fit_two_parameters(std::span<const Sample2> samples,
                                      const TwoParameterOptions& options = {});

}  // namespace ompscale::modeler

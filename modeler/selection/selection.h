#pragma once
// Internal to the modeler: fitting and scoring every hypothesis of a space against the points'
// noise, the first step of the default preset's selection (docs/methods.md, "Selection").

#include <cstddef>
#include <limits>
#include <vector>

#include "modeler/core/hypothesis.h"
#include "modeler/core/points.h"
#include "modeler/core/result.h"
#include "modeler/numerics/least_squares.h"
#include "modeler/presets/options.h"

namespace ompscale::modeler {

/// One hypothesis fitted to the points.
struct Candidate {
  static constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<TermShape> shapes;
  LinearFit fit;  ///< leverage and residuals only for the chosen candidate of a SelectionOutcome
  double chi2 = kInf;       ///< weighted in-sample residual sum of squares
  double loo_chi2 = kInf;   ///< weighted held-out residual sum of squares
  double loo_smape = kInf;  ///< held-out SMAPE (percent)
  double loo_rss = kInf;
  double score = kInf;  ///< lower is better; differences are in chi^2 units
  Model model;
  std::size_t parameters() const { return shapes.size() + 1; }
};

/// Every hypothesis scored on one set of points.
struct SelectionOutcome {
  Points points;  ///< the points as fitted (their variance may include a systematic part)
  std::vector<Candidate> candidates;  ///< the constant model first
  std::size_t chosen = 0;
  double noise_scale = 1.0;  ///< variance inflation: reduced chi^2 of the best fit when above 1
  std::vector<double> posterior;  ///< weight of each candidate in the predictive mixture
};

/// The configured space, plus negative exponents when the values fall with the parameter (more
/// pairs of points fall than rise: strong scaling) and the space has none; see
/// ModelerOptions::negative_exponents_when_falling.
HypothesisSpace space_for(const Points& p, const ModelerOptions& options);

/// Fits every hypothesis of `space` by weighted least squares against the points' standard
/// deviations and scores them (noise-aware: BIC with the growth prior; or held-out SMAPE / RSS).
SelectionOutcome score_hypotheses(const Points& p, const HypothesisSpace& space,
                                  const ModelerOptions& options);

/// Chi^2 units by which every hypothesis with a term starts behind the constant model among
/// `hypotheses` term hypotheses: the prior gives "no growth" a third of the belief and spreads
/// the rest over the shapes.
double growth_prior_penalty(std::size_t hypotheses);

/// RSS, SMAPE, held-out SMAPE and adjusted R^2 of a candidate over the points.
FitStatistics describe_fit(const Points& p, const Candidate& c, double tss);

/// Relative variance of one new aggregated measurement (before the noise scale): the
/// repetitions' noise of one aggregate plus the systematic part; 1 without repetitions (the
/// scale then comes from the residuals alone).
double relative_noise_variance(const Points& p);
/// Absolute variance of one new aggregated measurement (before the noise scale): 1 for
/// uniformly weighted points, whose scale comes from the residuals; 0 otherwise.
double absolute_noise_variance(const Points& p);

}  // namespace ompscale::modeler

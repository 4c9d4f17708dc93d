#pragma once
// Internal to the modeler: what repetitions do not show (docs/methods.md, "Real measurements").
// All repetitions of a point can share a deviation (placement, a slow phase), a point can follow
// another law than the rest (a team of one takes another code path), and a law that fits the
// measured range can bend outside it. Each has its estimate here.

#include <cstddef>
#include <optional>

#include "modeler/core/points.h"
#include "modeler/presets/options.h"
#include "modeler/selection/selection.h"

namespace ompscale::modeler {

/// Relative variance s^2 of the deviations all repetitions of a point share: the s^2 >= 0 at
/// which the candidate's weighted residuals match their degrees of freedom,
/// sum r_i^2 / (sd_i^2 + s^2 y_i^2) = n - p (method of moments); 0 when the repetitions explain
/// the residuals.
double systematic_variance(const Points& p, const Candidate& c);

/// The points with relative variance s2 added to each point's variance (Points::systematic).
Points with_systematic(const Points& p, double s2);

/// The noise-aware selection: scores every hypothesis against the repetitions' noise; when the
/// chosen model's residuals show a systematic variance, adds it to every point and scores again.
/// Other selections score once.
SelectionOutcome select_hypotheses(const Points& p, const ModelerOptions& options);

/// The same, leaving out one point the model chosen without it misses by more than
/// kOutlierDeviations predictive standard deviations, when that point also carries most of the
/// systematic variance. Candidates: the one-thread point, and the point with the largest
/// held-out residual. `left_out` names the point left out, if any.
SelectionOutcome select_without_outlier(const Points& p, const ModelerOptions& options,
                                        std::optional<std::size_t>& left_out);
inline constexpr double kOutlierDeviations = 5.0;

/// Model-form uncertainty outside the measured range, as a relative standard deviation per
/// doubling of the distance: the candidate's hypothesis is fitted to the smaller parameter
/// values only (every origin in the last quarter of the points, at least kDriftOrigins) and
/// predicts the larger ones; the squared relative errors beyond the fits' own predictive
/// variance, regressed on the squared distance in doublings. 0 unless every value is positive.
double forward_drift(const Points& p, const Candidate& c, double noise_scale);
inline constexpr std::size_t kDriftOrigins = 3;

}  // namespace ompscale::modeler

#include "modeler/selection/selection.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <span>

#include "modeler/numerics/nonlinear.h"

namespace ompscale::modeler {

namespace {

/// The hypotheses of a space and each building block's values at the points.
struct HypothesisTable {
  std::vector<double> t;
  std::vector<TermShape> space_blocks;  ///< the space's blocks, as given (the cache's key)
  int max_terms = 0;
  std::vector<TermShape> blocks;  ///< the space's blocks (without log terms when asked)
  bool without_logs = false;
  std::vector<std::vector<TermShape>> hypotheses;
  std::vector<std::size_t> block_of;         ///< for one-term hypotheses: index into blocks
  std::vector<std::vector<double>> columns;  ///< columns[b][i] = blocks[b].evaluate(t[i])
  /// Where a model must stay positive (see stays_positive) up to this limit, and each block's
  /// values there.
  double positive_limit = 0.0;
  std::vector<double> positive_t;
  std::vector<std::vector<double>> positive_columns;
};

/// The smallest measured parameter value, then every doubling from the largest one to `limit`.
std::vector<double> positivity_points(const std::vector<double>& t, double limit) {
  std::vector<double> points{t.front()};
  for (double v = t.back(); v <= limit; v *= 2.0) points.push_back(v);
  return points;
}

bool is_table_of(const HypothesisTable& table, const std::vector<double>& t,
                 const HypothesisSpace& space, bool without_logs, double positive_limit) {
  return table.t == t && table.without_logs == without_logs && table.max_terms == space.max_terms &&
         table.positive_limit == positive_limit && table.space_blocks == space.building_blocks;
}

void build_table(HypothesisTable& table, const std::vector<double>& t, const HypothesisSpace& space,
                 bool without_logs, double positive_limit) {
  const HypothesisSpace used = without_logs ? space.without_log_terms() : space;
  table.t = t;
  table.space_blocks = space.building_blocks;
  table.max_terms = space.max_terms;
  table.blocks = used.building_blocks;
  table.without_logs = without_logs;
  table.hypotheses = used.hypotheses();
  table.block_of.assign(table.hypotheses.size(), 0);
  for (std::size_t h = 0; h < table.hypotheses.size(); ++h) {
    if (table.hypotheses[h].size() != 1) continue;
    table.block_of[h] = static_cast<std::size_t>(
        std::find(table.blocks.begin(), table.blocks.end(), table.hypotheses[h][0]) -
        table.blocks.begin());
  }
  table.columns.assign(table.blocks.size(), {});
  table.positive_limit = positive_limit;
  table.positive_t = positivity_points(t, positive_limit);
  table.positive_columns.assign(table.blocks.size(), {});
  for (std::size_t b = 0; b < table.blocks.size(); ++b) {
    for (double v : t) table.columns[b].push_back(table.blocks[b].evaluate(v));
    for (double v : table.positive_t)
      table.positive_columns[b].push_back(table.blocks[b].evaluate(v));
  }
}

/// The table for these points and space. Kernels of one sweep share their thread counts, and
/// the outlier step leaves each point out in turn, so a sweep needs a few dozen tables: the
/// most recently used ones are kept per thread, and most kernels need neither pow() nor the
/// hypothesis enumeration. The reference is valid until the next call on this thread.
const HypothesisTable& hypothesis_table(const std::vector<double>& t, const HypothesisSpace& space,
                                        bool without_logs, double positive_limit) {
  constexpr std::size_t kKept = 64;
  thread_local std::vector<std::unique_ptr<HypothesisTable>> kept;  // most recent first
  const auto found = std::find_if(kept.begin(), kept.end(), [&](const auto& table) {
    return is_table_of(*table, t, space, without_logs, positive_limit);
  });
  if (found != kept.end()) {
    std::rotate(kept.begin(), found, found + 1);
    return *kept.front();
  }
  if (kept.size() < kKept) kept.push_back(std::make_unique<HypothesisTable>());
  std::rotate(kept.begin(), kept.end() - 1, kept.end());  // the least recent one is rebuilt
  build_table(*kept.front(), t, space, without_logs, positive_limit);
  return *kept.front();
}

/// Fits hypothesis `shapes` into `fit` (whose storage the closed form reuses). `column` holds the
/// term's values at the points when the hypothesis has one term.
void fit_hypothesis(const Points& p, std::span<const TermShape> shapes,
                    const std::vector<double>& weights, const ModelerOptions& options,
                    const std::vector<double>* column, LinearFit& fit) {
  if (column != nullptr && options.loss == Loss::kLeastSquares && options.folds < 2) {
    fit_one_term(*column, p.y, weights, fit);
  } else {
    const Eigen::MatrixXd x = design_matrix(p.t, shapes);
    fit = options.loss == Loss::kLeastSquares ? fit_least_squares(x, p.y, weights)
                                              : fit_robust(x, p.y, weights, options.loss);
  }
}

/// The candidate keeps its fit without the per-point vectors: most candidates are scored and
/// never looked at again, and the chosen one gets them back (keep_point_values).
Candidate fit_candidate(const Points& p, std::span<const TermShape> shapes,
                        const std::vector<double>& weights, const ModelerOptions& options,
                        const std::vector<double>* column = nullptr) {
  thread_local LinearFit full;
  Candidate c;
  c.shapes.assign(shapes.begin(), shapes.end());
  fit_hypothesis(p, shapes, weights, options, column, full);
  c.fit = without_point_values(full);
  if (!c.fit.ok) return c;
  c.model = c.fit.model(shapes);
  c.chi2 = c.fit.weighted_rss;
  const std::size_t n = p.size();
  if (n <= c.parameters()) return c;
  c.loo_chi2 = c.loo_rss = c.loo_smape = 0.0;
  if (options.folds >= 2) {
    const Eigen::MatrixXd x = design_matrix(p.t, shapes);
    // k-fold: refit without each fold (points dealt round-robin so every fold spans the range).
    const auto folds = static_cast<std::size_t>(std::min<int>(options.folds, static_cast<int>(n)));
    for (std::size_t f = 0; f < folds; ++f) {
      std::vector<Eigen::Index> train;
      for (std::size_t i = 0; i < n; ++i) {
        if (i % folds != f) train.push_back(static_cast<Eigen::Index>(i));
      }
      if (train.size() < c.parameters()) return c.loo_chi2 = Candidate::kInf, c;
      Eigen::MatrixXd xt(static_cast<Eigen::Index>(train.size()), x.cols());
      std::vector<double> yt, wt;
      for (std::size_t r = 0; r < train.size(); ++r) {
        xt.row(static_cast<Eigen::Index>(r)) = x.row(train[r]);
        yt.push_back(p.y[static_cast<std::size_t>(train[r])]);
        wt.push_back(weights[static_cast<std::size_t>(train[r])]);
      }
      const LinearFit fold = fit_least_squares(xt, yt, wt);
      if (!fold.ok) return c.loo_chi2 = Candidate::kInf, c;
      for (std::size_t i = f; i < n; i += folds) {
        const double predicted = x.row(static_cast<Eigen::Index>(i)).dot(fold.coefficients);
        const double d = p.y[i] - predicted;
        c.loo_chi2 += weights[i] * d * d;
        c.loo_rss += d * d;
        c.loo_smape += smape_term(p.y[i], predicted);
      }
    }
  } else {
    // Leave-one-out in closed form: the held-out residual is e_i / (1 - h_ii).
    for (std::size_t i = 0; i < n; ++i) {
      const double h = full.leverage(static_cast<Eigen::Index>(i));
      if (1.0 - h < 1e-10) return c.loo_chi2 = Candidate::kInf, c;
      const double d = full.residuals(static_cast<Eigen::Index>(i)) / (1.0 - h);
      c.loo_chi2 += weights[i] * d * d;
      c.loo_rss += d * d;
      c.loo_smape += smape_term(p.y[i], p.y[i] - d);
    }
  }
  c.loo_smape /= static_cast<double>(n);
  return c;
}

/// Whether hypothesis `h` of `table`, as fitted in `c`, stays positive from the smallest
/// measured parameter value to the table's limit, checked at every doubling from the largest
/// one on. A cost that falls with threads falls towards a floor (c0 + c t^-i), not through zero.
bool stays_positive(const Candidate& c, const HypothesisTable& table, std::size_t h) {
  if (table.hypotheses[h].size() == 1) {
    // One term: the block's values at the check points are in the table (no pow() per kernel).
    const auto& column = table.positive_columns[table.block_of[h]];
    const double c0 = c.fit.coefficients(0), c1 = c.fit.coefficients(1);
    return std::all_of(column.begin(), column.end(), [&](double x) { return c0 + c1 * x > 0.0; });
  }
  return std::all_of(table.positive_t.begin(), table.positive_t.end(),
                     [&](double t) { return c.model.evaluate(t) > 0.0; });
}

/// Refits the chosen candidate with its leverage and residuals, which scoring dropped: the
/// deviations of real measurements are judged from them (deviations.h). Same path, same values.
void keep_point_values(SelectionOutcome& sel, const std::vector<double>& weights,
                       const ModelerOptions& options) {
  Candidate& c = sel.candidates[sel.chosen];
  if (!c.fit.ok) return;
  std::vector<double> column;
  if (c.shapes.size() == 1) {
    for (double t : sel.points.t) column.push_back(c.shapes.front().evaluate(t));
  }
  fit_hypothesis(sel.points, c.shapes, weights, options, column.empty() ? nullptr : &column, c.fit);
}

/// Posterior weights for model averaging: exp(-information / 2), normalised.
std::vector<double> posterior_weights(const std::vector<double>& information, std::size_t chosen) {
  std::vector<double> posterior = information;
  const double best = *std::min_element(posterior.begin(), posterior.end());
  double total = 0.0;
  for (double& w : posterior) {
    w = std::isfinite(w) ? std::exp(-(w - best) / 2.0) : 0.0;
    total += w;
  }
  if (!(total > 0.0) || !std::isfinite(total)) {
    // No hypothesis has a finite score (e.g. one point): all belief on the chosen one.
    std::fill(posterior.begin(), posterior.end(), 0.0);
    posterior[chosen] = 1.0;
    return posterior;
  }
  for (double& w : posterior) w /= total;
  return posterior;
}

}  // namespace

/// The hypothesis space for these points: the configured one, plus negative exponents when the
/// values fall with the parameter (strong scaling) and the space has none.
HypothesisSpace space_for(const Points& p, const ModelerOptions& options) {
  const auto& blocks = options.space.building_blocks;
  const bool has_negative = std::any_of(blocks.begin(), blocks.end(),
                                        [](const TermShape& s) { return s.exponent < 0.0; });
  if (has_negative || !options.negative_exponents_when_falling) return options.space;
  // Falling: more pairs of points fall than rise (Kendall's tau below zero).
  long balance = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    for (std::size_t j = i + 1; j < p.size(); ++j) {
      if (p.y[j] < p.y[i]) --balance;
      if (p.y[j] > p.y[i]) ++balance;
    }
  }
  return balance < 0 ? options.space.with_negative_exponents() : options.space;
}

SelectionOutcome score_hypotheses(const Points& p, const HypothesisSpace& space,
                                  const ModelerOptions& options) {
  SelectionOutcome sel;
  sel.points = p;
  const std::vector<double> weights = p.weights();
  sel.candidates.push_back(fit_candidate(p, {}, weights, options));
  const bool positive = options.positive_models &&
                        std::all_of(p.y.begin(), p.y.end(), [](double v) { return v > 0.0; });
  if (p.size() >= 3) {
    const bool below_one = *std::min_element(p.t.begin(), p.t.end()) < 1.0;
    const HypothesisTable& table =
        hypothesis_table(p.t, space, below_one, options.budget_search_limit);
    // Candidates are large (fits, models): one allocation instead of a move at every growth.
    sel.candidates.reserve(table.hypotheses.size() + 1);
    for (std::size_t h = 0; h < table.hypotheses.size(); ++h) {
      const auto& shapes = table.hypotheses[h];
      if (shapes.size() + 1 >= p.size()) continue;  // no degree of freedom left to judge it
      const std::vector<double>* column =
          shapes.size() == 1 ? &table.columns[table.block_of[h]] : nullptr;
      Candidate c = fit_candidate(p, shapes, weights, options, column);
      if (!c.fit.ok || !std::isfinite(c.chi2)) continue;
      if (positive && !stays_positive(c, table, h)) continue;
      sel.candidates.push_back(std::move(c));
    }
  }
  const auto n = static_cast<double>(p.size());
  // Noise scale: with noise measured from repetitions, inflate it when even the best hypothesis
  // misses the points by more than the noise explains; without repetitions, the residuals of
  // the best fit are all we know of the noise.
  double best_reduced = Candidate::kInf;
  for (const Candidate& c : sel.candidates) {
    if (n > static_cast<double>(c.parameters())) {
      best_reduced = std::min(best_reduced, c.chi2 / (n - static_cast<double>(c.parameters())));
    }
  }
  if (!std::isfinite(best_reduced)) best_reduced = 1.0;
  // Without repetitions the weights are relative (1 / y^2): a residual below 1e-9 relative is
  // rounding, not signal, so an exact fit must not make every other hypothesis infinitely worse.
  sel.noise_scale =
      p.noise_from_repetitions ? std::max(1.0, best_reduced) : std::max(best_reduced, 1e-18);
  const double bic_penalty = std::log(std::max(n, 2.0));
  const double growth_penalty = growth_prior_penalty(sel.candidates.size() - 1);
  std::vector<double> information;
  for (Candidate& c : sel.candidates) {
    const double ic = c.chi2 / sel.noise_scale + bic_penalty * static_cast<double>(c.parameters()) +
                      (c.shapes.empty() ? 0.0 : growth_penalty);
    if (options.strategy == Strategy::kNoiseAware) {
      c.score = ic;
    } else {
      c.score = options.held_out_error == HeldOutError::kSmape ? c.loo_smape : c.loo_rss;
    }
    if (!std::isfinite(c.score)) c.score = Candidate::kInf;
    information.push_back(std::isfinite(ic) && std::isfinite(c.score) ? ic : Candidate::kInf);
  }
  // The constant model has no held-out error when n <= 1; keep it as the fallback.
  if (!std::isfinite(sel.candidates[0].score)) sel.candidates[0].score = 1e300;
  sel.chosen = 0;
  for (std::size_t i = 1; i < sel.candidates.size(); ++i) {
    if (sel.candidates[i].score < sel.candidates[sel.chosen].score) sel.chosen = i;
  }
  sel.posterior = posterior_weights(information, sel.chosen);
  keep_point_values(sel, weights, options);
  return sel;
}

FitStatistics describe_fit(const Points& p, const Candidate& c, double tss) {
  FitStatistics s;
  s.points = p.size();
  s.tss = tss;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const double predicted = c.model.evaluate(p.t[i]);
    s.rss += (p.y[i] - predicted) * (p.y[i] - predicted);
    s.smape += smape_term(p.y[i], predicted);
  }
  s.smape /= static_cast<double>(p.size());
  s.cv_error = std::isfinite(c.loo_smape) ? c.loo_smape : s.smape;
  const auto n = static_cast<double>(p.size());
  const auto k = static_cast<double>(c.parameters());
  if (c.shapes.empty() || tss == 0.0) {
    s.adjusted_r2 = 1.0;  // as Extra-P: a constant explains all there is to explain
  } else if (n > k) {
    s.adjusted_r2 = 1.0 - (s.rss / (n - k)) / (tss / (n - 1.0));
  } else {
    s.adjusted_r2 = std::nan("");
  }
  return s;
}

// Prior odds against growth: "no term" holds 1/3 of the prior and the hypotheses with a term
// share the rest, so each term shape starts 2 ln(hypotheses / 2) chi^2 units behind the constant
// model. Without it the best of ~38 shapes beats the constant on pure noise a third of the time.
double growth_prior_penalty(std::size_t hypotheses) {
  return 2.0 * std::log(std::max(1.0, static_cast<double>(hypotheses) / 2.0));
}

double relative_noise_variance(const Points& p) {
  if (p.uniform) return 0.0;
  return p.noise_from_repetitions ? p.noise_cv * p.noise_cv / p.typical_reps + p.systematic : 1.0;
}

double absolute_noise_variance(const Points& p) {
  return p.uniform ? 1.0 : 0.0;
}

}  // namespace ompscale::modeler

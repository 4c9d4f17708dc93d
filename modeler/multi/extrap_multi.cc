#include "modeler/multi/extrap_multi.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <utility>

#include "modeler/core/kernel.h"
#include "modeler/core/points.h"
#include "modeler/numerics/least_squares.h"
#include "modeler/selection/extrap_preset.h"

namespace ompscale::modeler {

namespace {

// Extra-P's minimum term contribution: a term below this share of every value is negligible.
constexpr double kMinContribution = 0.0005;

using Line = std::vector<std::pair<double, double>>;  // parameter value, mean

std::vector<double> without(const std::vector<double>& x, std::size_t p) {
  std::vector<double> rest = x;
  rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(p));
  return rest;
}

/// Groups of point indices in first-seen order of their key.
template <typename Key>
struct OrderedGroups {
  std::vector<Key> keys;
  std::vector<std::vector<std::size_t>> members;
  std::vector<std::size_t>& operator[](const Key& key) {
    const auto it = std::find(keys.begin(), keys.end(), key);
    if (it != keys.end()) return members[static_cast<std::size_t>(it - keys.begin())];
    keys.push_back(key);
    members.emplace_back();
    return members.back();
  }
};

/// The line of parameter p: the longest groups of points that share the other parameters'
/// values, averaged at each value of p over the groups that cover the first one's range.
Line line_of(const std::vector<MultiPoint>& points, std::size_t p) {
  OrderedGroups<std::vector<double>> by_rest;
  for (std::size_t i = 0; i < points.size(); ++i) by_rest[without(points[i].x, p)].push_back(i);
  std::size_t longest = 0;
  for (const auto& m : by_rest.members) longest = std::max(longest, m.size());
  OrderedGroups<double> by_value;
  for (const auto& m : by_rest.members) {
    if (m.size() != longest) continue;
    for (std::size_t i : m) by_value[points[i].x[p]].push_back(i);
  }
  std::vector<std::vector<double>> common;
  for (std::size_t i : by_value.members.front()) common.push_back(without(points[i].x, p));
  Line line;
  for (std::size_t g = 0; g < by_value.keys.size(); ++g) {
    double sum = 0.0;
    std::size_t count = 0;
    for (std::size_t i : by_value.members[g]) {
      if (std::find(common.begin(), common.end(), without(points[i].x, p)) == common.end()) {
        continue;
      }
      sum += points[i].value;
      ++count;
    }
    if (count > 0) line.push_back({by_value.keys[g], sum / static_cast<double>(count)});
  }
  return line;
}

Model model_of_line(const Line& line, const ModelerOptions& options) {
  std::vector<Sample> samples;
  for (const auto& [x, v] : line) samples.push_back({x, v});
  const Points p = summarize(Kernel::from_samples({}, samples), Aggregation::kMean);
  return fit_extrap(p, options).model;
}

struct Scored {
  MultiModel model;
  double rss = 0.0;
  double smape = 0.0;
};

void score(const std::vector<MultiPoint>& points, Scored& s) {
  s.rss = s.smape = 0.0;
  for (const MultiPoint& point : points) {
    const double predicted = s.model.evaluate(point.x);
    const double d = predicted - point.value;
    s.rss += d * d;
    const double sum = std::fabs(point.value) + std::fabs(predicted);
    if (sum != 0.0) s.smape += 2.0 * std::fabs(d) / sum;
  }
  s.smape = s.smape / static_cast<double>(points.size()) * 100.0;
}

/// Least-squares coefficients of the hypothesis's terms (the constant first) over all points;
/// false when the design is rank deficient.
bool fit_coefficients(const std::vector<MultiPoint>& points, MultiModel& model) {
  const auto n = static_cast<Eigen::Index>(points.size());
  Eigen::MatrixXd x(n, static_cast<Eigen::Index>(model.terms.size() + 1));
  std::vector<double> y;
  for (Eigen::Index i = 0; i < n; ++i) {
    const MultiPoint& point = points[static_cast<std::size_t>(i)];
    x(i, 0) = 1.0;
    for (std::size_t k = 0; k < model.terms.size(); ++k) {
      x(i, static_cast<Eigen::Index>(k + 1)) = model.terms[k].shape_at(point.x);
    }
    y.push_back(point.value);
  }
  const LinearFit fit = fit_least_squares(x, y, std::vector<double>(points.size(), 1.0));
  if (!fit.ok) return false;
  model.constant = fit.coefficients(0);
  for (std::size_t k = 0; k < model.terms.size(); ++k) {
    model.terms[k].coefficient = fit.coefficients(static_cast<Eigen::Index>(k + 1));
  }
  return true;
}

bool negligible(const MultiModel& model, const std::vector<MultiPoint>& points) {
  for (const MultiTerm& term : model.terms) {
    if (term.coefficient == 0.0) return true;
    double largest = 0.0;
    for (const MultiPoint& point : points) {
      largest = std::max(largest, std::fabs(term.evaluate(point.x) / point.value));
    }
    if (largest < kMinContribution) return true;
  }
  return false;
}

MultiTerm product(const std::vector<Factor>& factors, std::initializer_list<std::size_t> which) {
  MultiTerm term{1.0, {}};
  for (std::size_t i : which) term.factors.push_back(factors[i]);
  return term;
}

/// The combinations Extra-P tries, in its order.
std::vector<MultiModel> combinations(const std::vector<Factor>& f) {
  std::vector<std::vector<MultiTerm>> sums;
  if (f.size() > 3) {
    // Extra-P mixes sums and products for two and three parameters only.
    std::vector<MultiTerm> each;
    for (std::size_t i = 0; i < f.size(); ++i) each.push_back({1.0, {f[i]}});
    sums = {{{1.0, f}}, each};
  } else if (f.size() == 2) {
    const MultiTerm xy = product(f, {0, 1}), x = product(f, {0}), y = product(f, {1});
    sums = {{xy}, {x, y}, {x, xy}, {y, xy}};
  } else {
    const MultiTerm xyz = product(f, {0, 1, 2}), x = product(f, {0}), y = product(f, {1}),
                    z = product(f, {2}), xy = product(f, {0, 1}), yz = product(f, {1, 2}),
                    xz = product(f, {0, 2});
    sums = {{xyz},       {x, y, z},   {xyz, x},     {xyz, y},     {xyz, z},     {xyz, xy},
            {xyz, yz},   {xyz, xz},   {xyz, xy, z}, {xyz, yz, x}, {xyz, xz, y}, {xyz, x, y},
            {xyz, x, z}, {xyz, y, z}, {xy, z},      {xy, z, y},   {xy, z, x},   {xz, y},
            {xz, y, x},  {xz, y, z},  {yz, x},      {yz, x, y},   {yz, x, z}};
  }
  std::vector<MultiModel> out;
  for (auto& terms : sums) out.push_back({0.0, std::move(terms)});
  return out;
}

/// One term: the line model's own coefficients or refitted ones, by SMAPE.
Scored one_term(const std::vector<MultiPoint>& points, const Factor& factor, const Model& line) {
  Scored reused{{line.constant, {{line.terms[0].coefficient, {factor}}}}};
  score(points, reused);
  Scored refitted{{0.0, {{1.0, {factor}}}}};
  if (fit_coefficients(points, refitted.model)) {
    score(points, refitted);
    if (refitted.smape < reused.smape) return refitted;
  }
  return reused;
}

Scored several_terms(const std::vector<MultiPoint>& points, const std::vector<Factor>& factors) {
  std::vector<MultiModel> hypotheses = combinations(factors);
  Scored best{hypotheses.front()};
  fit_coefficients(points, best.model);
  score(points, best);
  for (MultiModel& hypothesis : hypotheses) {
    Scored candidate{std::move(hypothesis)};
    if (!fit_coefficients(points, candidate.model)) continue;
    score(points, candidate);
    if (negligible(candidate.model, points)) continue;
    if (candidate.smape < best.smape) best = std::move(candidate);
  }
  return best;
}

}  // namespace

MultiFit fit_extrap_multi(const std::vector<MultiPoint>& points, const ModelerOptions& options) {
  MultiFit result;
  const std::size_t dimensions = points.front().x.size();
  std::vector<Factor> factors;
  std::vector<std::size_t> factor_line;
  for (std::size_t p = 0; p < dimensions; ++p) {
    result.lines.push_back(model_of_line(line_of(points, p), options));
    if (!result.lines.back().terms.empty()) {
      factors.push_back({p, result.lines.back().terms[0].shape});
      factor_line.push_back(p);
    }
  }
  double mean = 0.0;
  for (const MultiPoint& point : points) mean += point.value;
  mean /= static_cast<double>(points.size());
  double tss = 0.0;
  for (const MultiPoint& point : points) tss += (point.value - mean) * (point.value - mean);

  Scored chosen{{mean, {}}};
  if (factors.size() == 1) {
    chosen = one_term(points, factors[0], result.lines[factor_line[0]]);
  } else if (factors.size() > 1) {
    chosen = several_terms(points, factors);
  }
  score(points, chosen);
  result.model = chosen.model;
  result.stats.points = points.size();
  result.stats.rss = chosen.rss;
  result.stats.smape = chosen.smape;
  result.stats.cv_error = chosen.smape;
  result.stats.tss = tss;
  double factor_count = 0.0;
  for (const MultiTerm& term : chosen.model.terms) {
    factor_count += static_cast<double>(term.factors.size());
  }
  const auto n = static_cast<double>(points.size());
  result.stats.adjusted_r2 = chosen.model.terms.empty()
                                 ? 1.0
                                 : 1.0 - (chosen.rss / tss) * (n - 1.0) / (n - factor_count - 1.0);
  return result;
}

}  // namespace ompscale::modeler

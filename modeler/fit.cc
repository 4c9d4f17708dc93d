#include "modeler/fit.h"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "modeler/extrap_preset.h"
#include "modeler/noise_aware.h"
#include "modeler/points.h"
#include "modeler/predict.h"
#include "modeler/selection.h"
#include "modeler/units.h"

namespace ompscale::modeler {

namespace {

/// Fits one set of points with the configured method, then adds everything derived from the model.
ClassModel fit_points(const Points& p, const ModelerOptions& options,
                      const std::optional<BudgetSpec>& budget) {
  ClassModel result =
      options.extrap_compatible ? fit_extrap(p, options) : fit_noise_aware(p, options);
  result.points = p.summary;
  if (options.extrap_compatible) {
    // Extra-P gives no intervals; a single-component distribution still serves predictions.
    PredictiveComponent only;
    only.model = result.model;
    only.covariance.assign((result.model.terms.size() + 1) * (result.model.terms.size() + 1), 0.0);
    result.predictive.components.push_back(std::move(only));
  }
  result.growth = result.model.growth();
  result.valid = std::isfinite(result.stats.adjusted_r2) &&
                 result.stats.adjusted_r2 >= options.valid_adjusted_r2;
  result.worse_than_log = result.valid && result.model.grows_faster_than_log();
  if (p.size() < 3) {
    result.warnings.push_back(
        fmt::format("only {} thread count(s): constant model; measure at least 3", p.size()));
  }
  for (double t : options.predict_at) {
    result.predictions.push_back(predict(result.predictive, t, options.confidence));
  }
  if (budget) {
    const double absolute = budget->relative ? budget->value * p.y.front() : budget->value;
    result.budget = find_budget_crossing(result.predictive, absolute, options.confidence,
                                         p.t.front(), options.budget_search_limit);
  }
  return result;
}

using Partition = std::vector<std::pair<std::string, std::vector<std::size_t>>>;

Partition partition_by(const Points& p, const std::vector<platforms::ThreadClass>& classes) {
  Partition parts;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const double t = p.t[i];
    std::string name = "other";
    if (t == std::round(t) && t >= 1.0) {
      if (auto c = platforms::classify(static_cast<int>(t), classes)) name = *c;
    }
    auto it =
        std::find_if(parts.begin(), parts.end(), [&](const auto& e) { return e.first == name; });
    if (it == parts.end()) {
      parts.push_back({name, {i}});
    } else {
      it->second.push_back(i);
    }
  }
  return parts;
}

std::string describe_partition(const Partition& parts) {
  std::vector<std::string> names;
  for (const auto& [name, idx] : parts)
    names.push_back(fmt::format("{} ({} points)", name, idx.size()));
  return fmt::format("{}", fmt::join(names, " | "));
}

struct PartitionChoice {
  std::optional<Partition> parts;  ///< none: one model
  std::string decision;
};

/// `--classes auto`: the full partition and each class against the rest compete with one model.
/// A split is kept only when its held-out error, penalised per extra model (BIC), beats one
/// model's. Both sides are judged under the same noise: the systematic variance the split's
/// parts show (a split that is real leaves little; one law with shared deviations leaves as much
/// as one model, and then one model wins).
PartitionChoice choose_partition(const Points& all, const ModelerOptions& options) {
  std::vector<Partition> candidates;
  const Partition full = partition_by(all, options.classes);
  if (full.size() > 1) candidates.push_back(full);
  for (const auto& cls : options.classes) {
    const Partition two = partition_by(all, {cls});
    if (two.size() == 2 && (full.size() != 2)) candidates.push_back(two);
  }
  const double n = static_cast<double>(all.size());
  // Held-out error as -2 log likelihood: in chi^2 units when the repetitions tell the noise;
  // otherwise the noise is unknown and n log(RSS / n) is the scale-free equivalent.
  auto deviance = [&](double held_out) {
    return all.noise_from_repetitions ? held_out : n * std::log(std::max(held_out, 1e-300) / n);
  };
  // Each extra model costs two coefficients (BIC) and the choice of its shape among the space's
  // hypotheses (the growth prior): without the latter, the best of several partitions splits
  // one law one time in ten.
  const double extra_model =
      2.0 * std::log(n) + growth_prior_penalty(options.space.hypotheses().size());
  PartitionChoice choice;
  double best_margin = 0.0, best_score = 0.0, best_one = 0.0;
  std::optional<double> one_without_split;
  for (const Partition& parts : candidates) {
    if (std::any_of(parts.begin(), parts.end(), [](const auto& p) { return p.second.size() < 4; }))
      continue;
    double systematic = 0.0;
    for (const auto& [name, idx] : parts) {
      systematic +=
          static_cast<double>(idx.size()) * systematic_variance(subset(all, idx), options);
    }
    systematic /= n;
    double held_out = 0.0;
    for (const auto& [name, idx] : parts) {
      held_out += held_out_error(subset(all, idx), options, systematic);
    }
    const double score = deviance(held_out) + extra_model * static_cast<double>(parts.size() - 1);
    const double one = deviance(held_out_error(all, options, systematic));
    if (!one_without_split) one_without_split = one;
    if (one - score > best_margin) {
      best_margin = one - score;
      best_score = score;
      best_one = one;
      choice.parts = parts;
    }
  }
  if (choice.parts) {
    choice.decision = fmt::format(
        "split into {}: held-out error {:.3g} against {:.3g} for one model; these classes behave "
        "differently",
        describe_partition(*choice.parts), best_score, best_one);
  } else if (!one_without_split) {
    choice.decision = candidates.empty()
                          ? "one model: the thread counts fall into a single class"
                          : "one model: no class has 4 or more thread counts on each side";
  } else {
    choice.decision = fmt::format(
        "one model: no class split lowers the held-out error ({:.3g}) enough to justify extra "
        "models (each class needs 4 or more thread counts)",
        *one_without_split);
  }
  return choice;
}

KernelResult fit_kernel_with_budget(const Kernel& kernel, const ModelerOptions& options,
                                    const std::optional<BudgetSpec>& budget) {
  KernelResult result;
  const Points all = summarize(kernel, options.aggregation);
  if (all.size() == 0) return result;
  auto fit_partition = [&](const Partition& parts) {
    for (const auto& [name, indices] : parts) {
      ClassModel m = fit_points(subset(all, indices), options, budget);
      m.thread_class = name;
      result.models.push_back(std::move(m));
    }
  };
  switch (options.class_mode) {
    case ClassMode::kNone:
      result.models.push_back(fit_points(all, options, budget));
      break;
    case ClassMode::kList:
      fit_partition(partition_by(all, options.classes));
      break;
    case ClassMode::kAuto: {
      const PartitionChoice choice = choose_partition(all, options);
      result.class_decision = choice.decision;
      if (choice.parts) {
        fit_partition(*choice.parts);
      } else {
        result.models.push_back(fit_points(all, options, budget));
      }
      break;
    }
  }
  return result;
}

std::optional<BudgetSpec> budget_for_kernel(const Dataset& dataset, const Kernel& kernel,
                                            const std::optional<BudgetSpec>& budget) {
  if (!budget || budget->relative || budget->unit.empty()) return budget;
  const auto it = std::find(dataset.key_columns.begin(), dataset.key_columns.end(), "unit");
  if (it == dataset.key_columns.end()) return budget;
  const auto unit = kernel.key_value(static_cast<std::size_t>(it - dataset.key_columns.begin()));
  BudgetSpec converted = *budget;
  converted.value = convert_time(budget->value, budget->unit, unit);
  converted.unit = std::string(unit);
  return converted;
}

}  // namespace

KernelResult fit_kernel(const Kernel& kernel, const ModelerOptions& options) {
  return fit_kernel_with_budget(kernel, options, options.budget);
}

void fit_dataset(const Dataset& dataset, const ModelerOptions& options, std::size_t chunk,
                 const std::function<void(KernelResult&&)>& sink) {
  // Budgets are converted to each kernel's unit first: errors must not escape the parallel loop.
  std::vector<std::optional<BudgetSpec>> budgets;
  if (options.budget) {
    budgets.reserve(dataset.kernels.size());
    for (const Kernel& kernel : dataset.kernels) {
      budgets.push_back(budget_for_kernel(dataset, kernel, options.budget));
    }
  }
  const std::optional<BudgetSpec> no_budget;
  const int threads = options.threads > 0 ? options.threads : omp_get_max_threads();
  chunk = std::max<std::size_t>(chunk, 1);
  std::vector<KernelResult> results;
  for (std::size_t first = 0; first < dataset.kernels.size(); first += chunk) {
    const std::size_t count = std::min(chunk, dataset.kernels.size() - first);
    results.assign(count, {});
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads)
    for (std::ptrdiff_t i = 0; i < static_cast<std::ptrdiff_t>(count); ++i) {
      const std::size_t k = first + static_cast<std::size_t>(i);
      results[static_cast<std::size_t>(i)] = fit_kernel_with_budget(
          dataset.kernels[k], options, budgets.empty() ? no_budget : budgets[k]);
      results[static_cast<std::size_t>(i)].kernel = k;
    }
    for (KernelResult& result : results) sink(std::move(result));
  }
}

std::vector<KernelResult> fit_dataset(const Dataset& dataset, const ModelerOptions& options) {
  std::vector<KernelResult> results;
  results.reserve(dataset.kernels.size());
  fit_dataset(dataset, options, dataset.kernels.size(),
              [&](KernelResult&& result) { results.push_back(std::move(result)); });
  return results;
}

}  // namespace ompscale::modeler

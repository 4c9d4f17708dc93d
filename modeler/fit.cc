#include "modeler/fit.h"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <exception>
#include <limits>
#include <map>
#include <mutex>
#include <numeric>

#include "modeler/core/boundaries.h"
#include "modeler/core/degenerate.h"
#include "modeler/core/points.h"
#include "modeler/core/units.h"
#include "modeler/prediction/budget.h"
#include "modeler/prediction/predict.h"
#include "modeler/selection/noise_aware.h"
#include "modeler/selection/selection.h"
#include "modeler/selection/strategy.h"

namespace ompscale::modeler {

namespace {

/// A kernel's budget as its fits use it: absolute, in the data's unit.
struct KernelBudget {
  std::optional<double> absolute;
  std::optional<PointSummary> base;  ///< the point a relative budget is relative to
  std::string unusable;              ///< why a requested budget has no value
};

KernelBudget resolve_budget(const std::optional<BudgetSpec>& spec, const Points& all,
                            double resolution) {
  KernelBudget budget;
  if (!spec) return budget;
  if (!spec->relative) {
    budget.absolute = spec->value;
    return budget;
  }
  budget.base = relative_budget_base(all.summary, resolution);
  if (budget.base) {
    budget.absolute = spec->value * budget.base->value;
  } else {
    budget.unusable = unusable_relative_budget(spec->value, resolution);
  }
  return budget;
}

bool finite_model(const ClassModel& m) {
  if (!std::isfinite(m.model.constant)) return false;
  return std::all_of(m.model.terms.begin(), m.model.terms.end(),
                     [](const Term& t) { return std::isfinite(t.coefficient); });
}

/// The prediction at `t`. Past a topology boundary that no measured thread count crosses, it is
/// flagged and its interval allows at least options.law_change_past_boundary per doubling.
Prediction predict_past_measurements(const PredictiveDistribution& predictive, const Points& p,
                                     double t, const ModelerOptions& options) {
  const double largest = *std::max_element(p.t.begin(), p.t.end());
  const std::vector<TopologyBoundary> past = uncrossed_boundaries(options.boundaries, largest, t);
  if (past.empty()) return predict(predictive, t, options.confidence);
  PredictiveDistribution wider = predictive;
  for (PredictiveComponent& c : wider.components)
    c.law_change_sd_relative = std::max(c.law_change_sd_relative, options.law_change_past_boundary);
  Prediction prediction = predict(wider, t, options.confidence);
  for (const TopologyBoundary& b : past) prediction.boundaries.push_back(b.what);
  return prediction;
}

/// Fits one set of points with the configured method, then adds everything derived from the model.
ClassModel fit_points(const Points& p, const ModelerOptions& options, const KernelBudget& budget) {
  if (auto reason = why_no_model(p)) return no_model(p, std::move(*reason));
  ClassModel result = all_zero(p) ? zero_model(p) : fit_with_strategy(p, options);
  if (!finite_model(result)) return no_model(p, "the fit gave no finite model");
  result.points = p.summary;
  if (!keep_finite_components(result.predictive))
    return no_model(p, "the fit gave no finite predictive distribution");
  result.growth = result.model.growth();
  result.valid = std::isfinite(result.stats.adjusted_r2) &&
                 result.stats.adjusted_r2 >= options.valid_adjusted_r2;
  result.worse_than_log = result.valid && result.model.grows_faster_than_log();
  for (double t : options.predict_at) {
    result.predictions.push_back(predict_past_measurements(result.predictive, p, t, options));
  }
  if (budget.absolute) {
    result.budget = find_budget_crossing(result.predictive, *budget.absolute, options.confidence,
                                         p.t.front(), options.budget_search_limit);
    result.budget->base = budget.base;
  } else if (!budget.unusable.empty()) {
    result.warnings.push_back(budget.unusable);
  }
  return result;
}

using Partition = std::vector<std::pair<std::string, std::vector<std::size_t>>>;

Partition partition_by(const Points& p, const std::vector<platforms::ThreadClass>& classes) {
  Partition parts;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const double t = p.t[i];
    std::string name = "other";
    if (t == std::round(t) && t >= 1.0 && t <= std::numeric_limits<int>::max()) {
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

/// The kernel's points, without NaN and infinite repetitions; `note` says how many were left out.
Points finite_points(const Kernel& kernel, Aggregation aggregation, double& resolution,
                     std::string& note) {
  std::size_t dropped = 0;
  const Kernel finite = finite_part(kernel, dropped);
  if (dropped > 0) {
    note = fmt::format("{} NaN or infinite value{} left out", dropped, dropped == 1 ? "" : "s");
  }
  resolution = resolution_of(finite);
  return summarize(finite, aggregation);
}

KernelResult fit_kernel_with_budget(const Kernel& kernel, const ModelerOptions& options,
                                    const std::optional<BudgetSpec>& spec) {
  KernelResult result;
  double resolution = 0.0;
  std::string note;
  const Points all = finite_points(kernel, options.aggregation, resolution, note);
  if (all.size() == 0) {
    if (!note.empty()) result.models.push_back(no_model(all, "no finite value: " + note));
    return result;
  }
  const KernelBudget budget = resolve_budget(spec, all, resolution);
  auto fit_partition = [&](const Partition& parts) {
    for (const auto& [name, indices] : parts) {
      ClassModel m = fit_points(subset(all, indices), options, budget);
      m.thread_class = name;
      result.models.push_back(std::move(m));
    }
  };
  const bool fittable = !why_no_model(all) && !all_zero(all);
  if (options.class_mode == ClassMode::kList) {
    fit_partition(partition_by(all, options.classes));
  } else if (options.class_mode == ClassMode::kAuto && fittable) {
    const PartitionChoice choice = choose_partition(all, options);
    result.class_decision = choice.decision;
    if (choice.parts) fit_partition(*choice.parts);
  }
  if (result.models.empty()) result.models.push_back(fit_points(all, options, budget));
  for (ClassModel& m : result.models) {
    m.resolution = resolution;
    if (!note.empty()) m.warnings.push_back(note);
  }
  return result;
}

}  // namespace

KernelResult fit_kernel(const Kernel& kernel, const ModelerOptions& options) {
  return fit_kernel_with_budget(kernel, options, options.budget);
}

namespace {

/// Hands results to a sink in kernel order from inside a parallel loop. A thread that completes
/// a kernel leaves it here; if no thread is writing, it writes every result that is next in order
/// (its own and those others left before). Results that finished before an earlier kernel wait
/// here; when kMaxWaiting of them wait, the threads that bring more sleep until the writing
/// thread catches up (one preempted writer must not let the others pile up the whole dataset).
class OrderedHandOff {
 public:
  using Sink = std::function<void(KernelResult&&, std::string&&)>;
  static constexpr std::size_t kMaxWaiting = 64;
  explicit OrderedHandOff(const Sink& sink) : sink_(sink) {}

  void put(std::size_t kernel, KernelResult&& result, std::string&& text) {
    std::unique_lock lock(mutex_);
    ready_.emplace(kernel, Ready{std::move(result), std::move(text)});
    if (writing_ || ready_.begin()->first != next_) {
      // The writing thread, or the one that brings the next kernel in order, takes this one when
      // its turn comes. That thread has not left its kernel yet, so it is not among the
      // sleepers: no deadlock.
      drained_.wait(lock, [&] { return ready_.size() <= kMaxWaiting; });
      return;
    }
    writing_ = true;
    while (!ready_.empty() && ready_.begin()->first == next_) {
      auto node = ready_.extract(ready_.begin());
      ++next_;
      lock.unlock();
      drained_.notify_all();
      if (!error_) {
        try {
          sink_(std::move(node.mapped().result), std::move(node.mapped().text));
        } catch (...) {
          error_ = std::current_exception();
        }
      }
      lock.lock();
    }
    writing_ = false;
  }

  /// After the loop: what the sink threw, if anything.
  void rethrow() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  struct Ready {
    KernelResult result;
    std::string text;
  };
  const Sink& sink_;
  std::mutex mutex_;
  std::condition_variable drained_;  ///< signalled as the writing thread takes results
  std::map<std::size_t, Ready> ready_;
  std::size_t next_ = 0;
  bool writing_ = false;
  std::exception_ptr error_;  ///< touched by the writing thread only
};

}  // namespace

void fit_dataset(const Dataset& dataset, const ModelerOptions& options,
                 const std::function<std::string(const KernelResult&)>& format,
                 const std::function<void(KernelResult&&, std::string&&)>& sink) {
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
  OrderedHandOff hand_off(sink);
  const auto count = static_cast<std::ptrdiff_t>(dataset.kernels.size());
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (std::ptrdiff_t i = 0; i < count; ++i) {
    const auto k = static_cast<std::size_t>(i);
    KernelResult result = fit_kernel_with_budget(dataset.kernels[k], options,
                                                 budgets.empty() ? no_budget : budgets[k]);
    result.kernel = k;
    std::string text = format ? format(result) : std::string();
    hand_off.put(k, std::move(result), std::move(text));
  }
  hand_off.rethrow();
}

std::vector<KernelResult> fit_dataset(const Dataset& dataset, const ModelerOptions& options) {
  std::vector<KernelResult> results(dataset.kernels.size());
  fit_dataset(dataset, options, {}, [&](KernelResult&& result, std::string&&) {
    results[result.kernel] = std::move(result);
  });
  return results;
}

}  // namespace ompscale::modeler

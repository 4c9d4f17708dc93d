#include "regions/report/models.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "modeler/fit.h"
#include "modeler/prediction/predict.h"

namespace ompscale::regions::report {

namespace {

constexpr std::size_t kMinPoints = 3;

modeler::ModelerOptions thread_options(const ModelOptions& options) {
  modeler::ModelerOptions o;
  // Region times fall with threads: without t^-i the best a model could do is a constant.
  o.space = modeler::HypothesisSpace::paper().with_negative_exponents();
  o.aggregation = modeler::Aggregation::kMedian;  // as the report combines repetitions
  o.predict_at = options.predict_at;
  o.confidence = options.confidence;
  o.parameter = "t";
  return o;
}

double efficiency_at(double base_threads, double base_time, double threads, double time) {
  return time > 0.0 ? base_time * base_threads / (threads * time)
                    : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

modeler::Dataset region_time_dataset(const Measurements& measurements, const std::string& source) {
  modeler::Dataset data;
  if (!source.empty()) data.sources.push_back(source);
  data.parameter = "threads";
  // metric and unit label the value axis of the modeler's plot.
  data.key_columns = {"region", "input", "metric", "unit"};
  for (const Region& region : measurements.regions) {
    for (const InputInfo& input : measurements.inputs) {
      std::vector<modeler::Sample> samples;
      for (const RegionPoint& p : region.points) {
        if (p.input != input.name) continue;
        for (double t : p.times) samples.push_back({static_cast<double>(p.threads), t});
      }
      if (samples.empty()) continue;
      data.kernels.push_back(modeler::Kernel::from_samples({region.label, input.name, "time", "s"},
                                                           std::move(samples)));
    }
  }
  return data;
}

ModelSet fit_models(const Measurements& measurements, const ModelOptions& options,
                    const std::string& source) {
  ModelSet set;
  modeler::Dataset all = region_time_dataset(measurements, source);
  set.dataset.parameter = all.parameter;
  set.dataset.key_columns = all.key_columns;
  set.dataset.sources = all.sources;
  std::vector<std::pair<std::string, std::string>> keys;  // region key, input per kernel
  std::size_t too_few = 0;
  for (modeler::Kernel& kernel : all.kernels) {
    if (kernel.size() < kMinPoints) {
      ++too_few;
      continue;
    }
    const auto region =
        std::find_if(measurements.regions.begin(), measurements.regions.end(),
                     [&](const Region& r) { return r.label == kernel.key_value(0); });
    keys.emplace_back(region->key, std::string(kernel.key_value(1)));
    set.dataset.kernels.push_back(std::move(kernel));
  }
  if (too_few > 0) {
    set.notes.push_back(fmt::format(
        "{} region/input combination(s) have fewer than {} thread counts: no model over threads",
        too_few, kMinPoints));
  }
  const modeler::ModelerOptions o = thread_options(options);
  set.results = modeler::fit_dataset(set.dataset, o);
  for (std::size_t i = 0; i < set.results.size(); ++i) {
    ThreadModel tm;
    tm.region_key = keys[i].first;
    tm.input = keys[i].second;
    tm.result = i;
    const modeler::ClassModel& cm = set.results[i].models.front();
    const double p0 = cm.points.front().param;
    const double t0 = cm.points.front().value;
    for (const modeler::Prediction& pr : cm.predictions) {
      tm.predicted.push_back({pr.param, pr.value, pr.interval.low, pr.interval.high,
                              efficiency_at(p0, t0, pr.param, pr.value)});
    }
    set.thread_models.push_back(std::move(tm));
  }

  // Over threads and input size: needs a size for every input and 3 distinct sizes.
  if (options.input_sizes.empty()) return set;
  std::set<double> sizes(options.input_sizes.begin(), options.input_sizes.end());
  if (sizes.size() < kMinPoints && sizes.size() > 1) {
    set.notes.push_back(
        fmt::format("{} input size(s): a model over threads and input size needs {} or more",
                    sizes.size(), kMinPoints));
  }
  if (sizes.size() < kMinPoints) return set;
  modeler::TwoParameterOptions two;
  two.first_name = "t";
  two.second_name = "n";
  two.first_options = o;
  two.first_options.predict_at.clear();
  two.second_options.parameter = "n";
  two.aggregation = modeler::Aggregation::kMedian;
  const double p0 = measurements.thread_counts.empty() ? 1.0 : measurements.thread_counts.front();
  for (const Region& region : measurements.regions) {
    std::vector<modeler::Sample2> samples;
    std::set<double> region_sizes;
    for (const RegionPoint& p : region.points) {
      const auto it = std::find_if(measurements.inputs.begin(), measurements.inputs.end(),
                                   [&](const InputInfo& in) { return in.name == p.input; });
      const double size =
          options.input_sizes[static_cast<std::size_t>(it - measurements.inputs.begin())];
      region_sizes.insert(size);
      for (double t : p.times) samples.push_back({static_cast<double>(p.threads), size, t});
    }
    if (region_sizes.size() < kMinPoints) continue;
    InputModel im;
    im.region_key = region.key;
    im.result = modeler::fit_two_parameters(samples, two);
    for (double t : options.predict_at) {
      for (std::size_t i = 0; i < measurements.inputs.size(); ++i) {
        const double n = options.input_sizes[i];
        const double time = im.result.model.evaluate(t, n);
        im.predicted.push_back({t, measurements.inputs[i].name, n, time,
                                efficiency_at(p0, im.result.model.evaluate(p0, n), t, time)});
      }
    }
    set.input_models.push_back(std::move(im));
  }
  return set;
}

}  // namespace ompscale::regions::report

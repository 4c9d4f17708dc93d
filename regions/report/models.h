#pragma once
// PMNF models of region times (docs/ompscan-report.md, "Models"):
//
// - over threads, one per (region, input) measured at 3 or more thread counts: the modeler's
//   default preset (fit_kernel) on every repetition's time, aggregated by median like the report,
//   with the paper's hypothesis space plus negative exponents (strong scaling: time ~ 1/t);
//   predicted time, interval and efficiency at larger thread counts;
// - over threads and input size, one per region measured at 3 or more input sizes
//   (modeler/multi/multi_parameter.h), with its predicted efficiency at the same thread counts.

#include <string>
#include <vector>

#include "modeler/core/kernel.h"
#include "modeler/core/result.h"
#include "modeler/multi/multi_parameter.h"
#include "regions/report/regions.h"

namespace ompscale::regions::report {

struct ModelOptions {
  /// Thread counts to predict at (the report's default: 2x and 4x the largest measured).
  std::vector<double> predict_at;
  /// Level of the prediction intervals (default 0.9).
  double confidence = 0.90;
  /// Size of each input, in Measurements::inputs order; empty: no model over input size.
  std::vector<double> input_sizes;
};

/// A prediction of a region's time at `threads`, and the efficiency it implies against the
/// measured time at the smallest thread count p0: T(p0) * p0 / (threads * time).
struct PredictedPoint {
  double threads = 0.0;
  double time = 0.0;
  double low = 0.0;  ///< prediction interval
  double high = 0.0;
  double efficiency = 0.0;  ///< NaN when the predicted time is not positive
};

struct ThreadModel {
  std::string region_key;
  std::string input;
  std::size_t result = 0;  ///< index into ModelSet::results (and its kernel into the dataset)
  std::vector<PredictedPoint> predicted;
};

/// A two-parameter prediction at (threads, input).
struct InputPrediction {
  double threads = 0.0;
  std::string input;
  double size = 0.0;
  double time = 0.0;
  double efficiency = 0.0;  ///< against the model's own time at p0 and this size
};

struct InputModel {
  std::string region_key;
  modeler::TwoParameterResult result;
  std::vector<InputPrediction> predicted;  ///< every predict_at thread count at every input
};

struct ModelSet {
  /// Region times: parameter "threads", key columns "region" (the region's label), "input",
  /// "metric" ("time") and "unit" ("s"); one kernel per (region, input) with every
  /// repetition's time.
  modeler::Dataset dataset;
  /// Models of the kernels with 3 or more thread counts, in dataset order.
  std::vector<modeler::KernelResult> results;
  std::vector<ThreadModel> thread_models;  ///< parallel to results
  std::vector<InputModel> input_models;
  std::vector<std::string> notes;  ///< why a model is missing
};

/// The region-time dataset (every kernel, whatever its number of thread counts); `source` names
/// where the runs came from (Dataset::sources).
modeler::Dataset region_time_dataset(const Measurements& measurements,
                                     const std::string& source = "");

ModelSet fit_models(const Measurements& measurements, const ModelOptions& options,
                    const std::string& source = "");

}  // namespace ompscale::regions::report

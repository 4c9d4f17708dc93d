#pragma once
// What a method is asked to measure and what it returns: one batch of values of one
// configuration (construct, parameter value, thread count), inside one worker process.

#include <string>
#include <vector>

#include "microbench/catalogue.h"

namespace ompscale::microbench {

struct BatchRequest {
  const ConstructInfo* construct = nullptr;
  /// The construct's parameter value as text ("16", "729"); empty when it has none.
  std::string param_value;
  int threads = 1;
  /// Values per metric to produce (repetitions of the measurement after warm-up).
  int count = 25;
  /// Repetition index of the first value; values are numbered first_rep, first_rep + 1, ...
  int first_rep = 0;
};

/// One measured value. A method reports every value it measured, including invalid ones
/// (missed window, overrun): they are written as valid=0 rows, never dropped.
struct Sample {
  std::string metric;  // "min_cost", "avg_cost", "max_cost", "release_skew", "overhead", ...
  int rep = 0;
  double value_ns = 0;
  bool valid = true;
};

struct BatchResult {
  std::vector<Sample> samples;
  /// Non-empty when the configuration cannot run here (e.g. the runtime lacks
  /// omp_init_lock_with_hint); then samples is empty and this says why, in one line.
  std::string unavailable;
};

}  // namespace ompscale::microbench

#pragma once
// Expands RunOptions into what to measure: settings (one worker process each per round, since the
// runtime reads OMP_* once) and configurations (construct, method, parameter, thread count), and
// orders the batches so configurations interleave in time.

#include <string>
#include <vector>

#include "microbench/catalogue.h"
#include "microbench/driver/run_options.h"
#include "platforms/platform.h"

namespace ompscale::microbench {

/// One worker process environment.
struct Setting {
  std::string runtime;  // "gnu" or "llvm" (the worker build), see runtime_column() for the CSV
  std::string bind;     // OMP_PROC_BIND
  std::string places;   // OMP_PLACES ("" with bind=false)
};

struct Config {
  int setting = 0;  // index into Plan::settings
  const ConstructInfo* construct = nullptr;
  Method method = Method::kDirect;
  std::string param_value;
  int threads = 1;
  bool oversubscribed = false;
};

struct Plan {
  std::vector<Setting> settings;
  std::vector<Config> configs;
  std::vector<int> thread_counts;
};

/// Builds the plan. `llvm_available` says whether the clang worker exists; `hardware_threads`
/// bounds thread counts unless options.oversubscribe. Throws UsageError for unknown constructs,
/// suites, methods, bindings, places, runtimes, and for thread counts above the hardware without
/// --oversubscribe.
Plan make_plan(const RunOptions& options, bool llvm_available, int hardware_threads);

/// Key identifying a configuration's rows in a results file (for resume): every column that is
/// fixed per configuration.
std::string config_key(const std::string& construct, const std::string& method,
                       const std::string& threads, const std::string& bind,
                       const std::string& places, const std::string& runtime,
                       const std::string& param_value);

}  // namespace ompscale::microbench

#pragma once
// What the OpenMP runtime costs on this machine, measured by ompscan-probe
// (regions/probe/probe.cc) before the sweep's runs, for the prices of ompscan report's hints
// (report/machine_costs.h): a few repetitions per runtime the runs use, each judged for time
// sharing like a run, written to DIR/probe-<runtime>.json (docs/ompscan-formats.md).

#include <string>
#include <vector>

namespace ompscale::regions {

/// One runtime to measure: "libomp" or "libgomp", the library the probe loads there, and the
/// probe's environment (the runs' binding and places; for libomp the GOMP shim, since the probe
/// is built by the project's compiler for libgomp).
struct ProbeRuntime {
  std::string runtime;
  std::string library;
  std::vector<std::string> environment;
};

struct ProbeRequest {
  std::string probe;      ///< the ompscan-probe binary
  std::string directory;  ///< the run directory
  int threads = 1;        ///< the sweep's largest thread count
  int repetitions = 3;
  bool force = false;  ///< measure again where a probe file exists
  std::vector<ProbeRuntime> runtimes;
};

/// ompscan-probe next to the running ompscan binary; "" when there is none.
std::string locate_probe();

/// Measures every runtime of `request` that has no probe file yet (all with force), writing one
/// file each. Returns one line per runtime it could not measure (the probe failed or printed no
/// result), for stderr; the report then states the costs it assumes.
std::vector<std::string> measure_machine_costs(const ProbeRequest& request);

}  // namespace ompscale::regions

#pragma once
// What the OpenMP runtime costs on the machine the runs were made on, for the prices of the
// report's hints: a loop chunk's dispatch, a dynamic loop's own cost, an explicit task, a cache
// line moving between cores, the runtime's start. `ompscan run` measures them with ompscan-probe
// (regions/probe/probe.cc) before its runs and writes DIR/probe-<runtime>.json (format
// ompscan-probe-run-1, docs/ompscan-formats.md): the probe's repetitions, each with whether it was
// time-shared. Time-shared repetitions are left out; with none left, or no probe file, the report
// states the values it assumed instead.

#include <string>
#include <vector>

namespace ompscale::regions::report {

struct MachineCosts {
  std::string runtime;    ///< "libomp" or "libgomp"
  int threads = 0;        ///< measured at this thread count (0: assumed)
  bool measured = false;  ///< false: the assumed values below
  /// "measured by ompscan run before the sweep (probe-libomp.json, 3 repetitions)" or "assumed:
  /// ... (why)": said next to every price made with these.
  std::string source;
  double init_s = 0.0;   ///< the runtime's initialisation at its first call
  double team_s = 0.0;   ///< starting the first team's threads
  double chunk_s = 0.0;  ///< one chunk's dispatch, on the thread that takes it
  double dynamic_fixed_s =
      0.0;              ///< a dynamic loop's own cost per execution and thread, over static
  double task_s = 0.0;  ///< thread time per explicit task (creation, scheduling, taskwait)
  double line_s = 0.0;  ///< a cache line moving between two cores
};

/// The probe files of a run directory (their contents, as read).
struct ProbeFile {
  std::string path;
  std::string content;
};

/// Every runtime's costs measured by the probe files; a probe file that is not valid is an
/// InputError naming it.
std::vector<MachineCosts> read_machine_costs(const std::vector<ProbeFile>& files);

/// The costs of `runtime` ("libomp", "libgomp") at `threads`: the measurement at the nearest
/// thread count, else the assumed values (source says which, and why).
MachineCosts costs_for(const std::vector<MachineCosts>& measured, const std::string& runtime,
                       int threads);

/// "libomp" or "libgomp" from a runtime library path or name ("" when neither).
std::string runtime_family(const std::string& library);

}  // namespace ompscale::regions::report

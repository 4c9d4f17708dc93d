#pragma once
// What the application's process gets from ompscan: the OMPT tool (libompscan.so, located once)
// and, per run, the environment that sets the actuators and loads the tool.

#include <string>
#include <vector>

namespace ompscale::regions {

/// libompscan.so: `option` (--tool) when given, else $OMPSCAN_TOOL, else libompscan.so next to
/// the running ompscan binary (the build tree), else ../lib/libompscan.so from it (an install).
/// Throws UsageError naming the places looked at when there is none.
std::string locate_tool(const std::string& option);

struct RunSettings {
  int threads = 1;
  std::string bind;       // OMP_PROC_BIND; "" = inherited
  std::string places;     // OMP_PLACES; "" = inherited
  std::string tool;       // libompscan.so
  std::string profile;    // where the tool writes its profile (OMPSCAN_OUTPUT)
  std::string gomp_shim;  // directory with libgomp.so.1 -> libomp; "" = not a GCC binary
  // A GCC binary (not a script, whose children may be clang-built): its measured runs keep
  // libgomp's schedule(runtime) default.
  bool libgomp_schedule = false;
  double tsc_hz = 0;           // OMPSCAN_TSC_HZ for the tool (TSC ticks per second); 0 = not set
  bool raw_locations = false;  // OMPSCAN_LOCATIONS=raw: the caller resolves source lines
  bool native = false;  // without the tool: actuators only (and the shim when gomp_shim is set)
  std::vector<std::string> extra;  // "NAME=VALUE" a native run's variant sets (OMP_WAIT_POLICY)
};

/// `base` ("NAME=VALUE" entries, normally environ) with the run's variables: OMP_NUM_THREADS,
/// OMP_PROC_BIND/OMP_PLACES when set, OMP_TOOL=enabled and OMP_TOOL_LIBRARIES=<tool>, the tool
/// first in LD_PRELOAD (the manual-region API of ompscan.h finds it with dlsym),
/// OMPSCAN_OUTPUT, OMPSCAN_TSC_HZ when known, OMPSCAN_LOCATIONS=raw when asked, and the shim
/// first in LD_LIBRARY_PATH with, for a GCC binary (`libgomp_schedule`), libgomp's
/// OMP_SCHEDULE default unless `base` sets one (a GCC
/// build's schedule(runtime) loops measured on libomp as they run on libgomp: gomp_abi.h). A native
/// run gets the thread count, binding and places, its variant's variables, and the shim when it
/// runs on libomp.
std::vector<std::string> run_environment(const std::vector<std::string>& base,
                                         const RunSettings& settings);

/// The current process's environment as "NAME=VALUE" entries.
std::vector<std::string> current_environment();

/// The variables of `env` that steer an OpenMP runtime (OMP_*, KMP_*, GOMP_*, LIBOMP_*), as
/// (name, value), sorted: what the run file records of the environment.
std::vector<std::pair<std::string, std::string>> openmp_variables(
    const std::vector<std::string>& env);

}  // namespace ompscale::regions

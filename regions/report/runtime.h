#pragma once
// Which OpenMP runtime the report measured, and how the application fares on its own.
//
// Only libomp implements OMPT, so a GCC-built application (libgomp) is measured on libomp
// through its GOMP ABI (docs/ompscan-run.md). Every format says so. `ompscan run` also runs such
// an application once per (input, thread count) on its own libgomp, without the tool, for its
// wall and CPU time ("native" runs); the report compares them with the measured runs: a large
// difference between the runtimes is a finding of its own, often worth more than any region's
// hint.

#include <string>
#include <vector>

#include "regions/report/read_runs.h"
#include "regions/report/regions.h"

namespace ompscale::regions::report {

/// The application at one (input, thread count) without the tool, with one runtime setting
/// (`variant`: its own libgomp as it is, a knob, or libomp), against the measured runs.
struct NativeComparison {
  std::string input;
  int threads = 0;
  std::string variant;      ///< "libgomp", "passive", "active", "spincount", "libomp"
  std::string environment;  ///< what the variant sets ("OMP_WAIT_POLICY=active"), "" none
  int repetitions = 0;      ///< runs combined (time-shared ones left out when others were not)
  int time_shared_left_out = 0;
  /// Every run was time-shared (fewer CPUs than threads): shown, never advised from.
  bool time_shared = false;
  double native_s = 0.0;  ///< wall time, median of the repetitions
  double min_s = 0.0;     ///< the fastest and slowest repetition
  double max_s = 0.0;
  double native_cpu_s = 0.0;  ///< user + system time, median
  double measured_s = 0.0;    ///< the measured runs' wall time (the program's median)
  /// native_s / measured_s: above 1, the application is that much slower this way.
  double ratio() const { return measured_s > 0.0 ? native_s / measured_s : 0.0; }
  /// (max - min) / median of the repetitions.
  double spread() const { return native_s > 0.0 ? (max_s - min_s) / native_s : 0.0; }
};

struct RuntimeReport {
  std::string library;         ///< the runtime measured (the loader's answer), "" when unknown
  std::string version;         ///< its version, as it told the tool
  bool gomp_abi = false;       ///< GCC-built, measured on libomp's GOMP ABI
  std::string native_library;  ///< the application's own runtime (native runs), "" without
  std::vector<NativeComparison> native;  ///< by input, then threads, then variant
  /// The finding in words: which runtime was measured and, with native runs, how the two compare
  /// at the largest thread count of the reference input.
  std::string summary;
  std::string advice;  ///< what to do about a large difference; "" when none
  /// The runtime setting measured fastest beyond the runs' spread at the reference point
  /// ("OMP_WAIT_POLICY=active", "GOMP_SPINCOUNT=...", "libomp"), "" when none is; its gain (s),
  /// and the advice in words (also when none: keep the defaults).
  std::string knob;
  double knob_gain_s = 0.0;
  std::string knob_advice;
};

/// Of the runtime settings measured at one (input, thread count), `at` (the application's own
/// runtime as it is among them, variant "libgomp"), the one that beats it: the fastest, faster
/// beyond both measurements' spread (their ranges do not overlap), by 2% or more, and by more
/// than the largest spread (max - min) of any setting compared there. The last guards against
/// the luck of picking the fastest of several settings from a few runs each: a setting that
/// gains less than one run of any of them can vary cannot be told from it. nullptr when none
/// does, and never from a time-shared measurement.
const NativeComparison* faster_setting(const std::vector<const NativeComparison*>& at);

/// The runtime of the usable runs and the comparison with the native ones.
RuntimeReport describe_runtime(const RunSet& runs, const Measurements& measurements,
                               const std::string& reference_input);

/// "libomp (LLVM OMP version: 5.0.20140926) through its GOMP ABI" and the like, one line.
std::string measured_runtime_words(const RuntimeReport& runtime);

}  // namespace ompscale::regions::report

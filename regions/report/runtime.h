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

/// The application at one (input, thread count) on its own runtime and as measured.
struct NativeComparison {
  std::string input;
  int threads = 0;
  double native_s = 0.0;      ///< wall time of the native run(s), median
  double native_cpu_s = 0.0;  ///< their user + system time, median
  double measured_s = 0.0;    ///< the measured runs' wall time (the program's median)
  /// native_s / measured_s: above 1, the application is that much slower on its own runtime.
  double ratio() const { return measured_s > 0.0 ? native_s / measured_s : 0.0; }
};

struct RuntimeReport {
  std::string library;     ///< the runtime measured (the loader's answer), "" when unknown
  std::string version;     ///< its version, as it told the tool
  bool gomp_abi = false;   ///< GCC-built, measured on libomp's GOMP ABI
  std::string native_library;  ///< the application's own runtime (native runs), "" without
  std::vector<NativeComparison> native;  ///< by input, then threads
  /// The finding in words: which runtime was measured and, with native runs, how the two compare
  /// at the largest thread count of the reference input.
  std::string summary;
  std::string advice;  ///< what to do about a large difference; "" when none
};

/// The runtime of the usable runs and the comparison with the native ones.
RuntimeReport describe_runtime(const RunSet& runs, const Measurements& measurements,
                               const std::string& reference_input);

/// "libomp (LLVM OMP version: 5.0.20140926) through its GOMP ABI" and the like, one line.
std::string measured_runtime_words(const RuntimeReport& runtime);

}  // namespace ompscale::regions::report

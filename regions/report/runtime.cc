#include "regions/report/runtime.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <utility>

#include "common/statistics.h"

namespace ompscale::regions::report {

namespace {

constexpr double kSeconds = 1e-9;
// Runtimes within this factor of each other perform alike (runs on a busy machine differ by
// about that much from one to the next).
constexpr double kAlike = 1.25;

std::string basename(const std::string& path) {
  return path.empty() ? "" : std::filesystem::path(path).filename().string();
}

const ProgramPoint* program_point(const Measurements& m, const std::string& input, int threads) {
  for (const ProgramPoint& p : m.program) {
    if (p.input == input && p.threads == threads) return &p;
  }
  return nullptr;
}

std::vector<NativeComparison> compare(const RunSet& runs, const Measurements& m) {
  std::map<std::pair<int, int>, std::pair<std::vector<double>, std::vector<double>>> by_config;
  std::map<std::pair<int, int>, std::string> inputs;
  for (const RunFile& run : runs.native) {
    if (run.signal || run.wall_ns <= 0.0) continue;  // cut short: no time to compare
    const std::pair<int, int> key{run.input_index, run.threads};
    by_config[key].first.push_back(run.wall_ns * kSeconds);
    by_config[key].second.push_back(run.cpu_ns * kSeconds);
    inputs[key] = run.input;
  }
  std::vector<NativeComparison> out;
  for (const auto& [key, times] : by_config) {
    NativeComparison c;
    c.input = inputs[key];
    c.threads = key.second;
    c.native_s = stats::median(times.first);
    c.native_cpu_s = stats::median(times.second);
    if (const ProgramPoint* p = program_point(m, c.input, c.threads)) c.measured_s = p->time;
    out.push_back(c);
  }
  return out;
}

// The comparison at the largest thread count of the reference input, in words.
void find(RuntimeReport& out, const std::string& reference_input) {
  const NativeComparison* at = nullptr;
  for (const NativeComparison& c : out.native) {
    if (c.input == reference_input && c.measured_s > 0.0 && (at == nullptr || c.threads > at->threads)) {
      at = &c;
    }
  }
  if (at == nullptr) return;
  const std::string own = basename(out.native_library).empty() ? "libgomp"
                                                               : basename(out.native_library);
  const std::string measured = basename(out.library).empty() ? "libomp" : basename(out.library);
  const double r = at->ratio();
  out.summary += fmt::format(
      ". On its own runtime ({}) it took {:.4g} s at {} threads against {:.4g} s on {} (measured, "
      "with the tool): ",
      own, at->native_s, at->threads, at->measured_s, measured);
  if (r >= kAlike) {
    out.summary += fmt::format("{:.1f}x slower on its own runtime", r);
    out.advice = fmt::format(
        "run it on {0}: build it with clang -fopenmp, or put a directory holding libgomp.so.1 -> "
        "{0} first on LD_LIBRARY_PATH (what ompscan does); or change how libgomp's idle threads "
        "wait (OMP_WAIT_POLICY=active, GOMP_SPINCOUNT): that alone gains {1:.4g} s at {2} threads",
        measured, at->native_s - at->measured_s, at->threads);
  } else if (r <= 1.0 / kAlike) {
    out.summary += fmt::format("{:.1f}x faster on its own runtime", 1.0 / r);
    out.advice = fmt::format(
        "the losses below are {}'s: on {} the program is faster, and its regions may lose time "
        "differently",
        measured, own);
  } else {
    out.summary += fmt::format("the runtimes perform alike here (within {:.0f}%)",
                               100.0 * (kAlike - 1.0));
  }
}

}  // namespace

std::string measured_runtime_words(const RuntimeReport& runtime) {
  // A wrapper script's runs name no library: the runtime's own version tells it.
  std::string out = !runtime.library.empty()                           ? basename(runtime.library)
                    : runtime.version.find("LLVM") != std::string::npos ? "libomp"
                                                                        : "an OpenMP runtime";
  if (!runtime.version.empty()) out += fmt::format(" ({})", runtime.version);
  if (runtime.gomp_abi) {
    out +=
        " through its GOMP ABI: the application is GCC-built for libgomp, which has no OMPT, and "
        "was measured on libomp";
  }
  return out;
}

RuntimeReport describe_runtime(const RunSet& runs, const Measurements& measurements,
                               const std::string& reference_input) {
  RuntimeReport out;
  for (const RunFile& run : runs.usable) {
    if (out.library.empty()) out.library = run.runtime_library;
    if (out.version.empty() && run.profile) out.version = run.profile->runtime_version;
    out.gomp_abi = out.gomp_abi || run.gomp_abi;
  }
  for (const RunFile& run : runs.native) {
    if (out.native_library.empty()) out.native_library = run.runtime_library;
  }
  out.native = compare(runs, measurements);
  out.summary = "Measured on " + measured_runtime_words(out);
  find(out, reference_input);
  return out;
}

}  // namespace ompscale::regions::report

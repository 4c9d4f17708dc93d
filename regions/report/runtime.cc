#include "regions/report/runtime.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <tuple>
#include <utility>

#include "common/statistics.h"
#include "regions/report/read_runs.h"

namespace ompscale::regions::report {

namespace {

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

// The order variants are listed in: the application's own runtime first.
int variant_rank(const std::string& variant) {
  int rank = 0;
  for (const char* name : {"libgomp", "passive", "active", "spincount", "libomp"}) {
    if (variant == name) return rank;
    ++rank;
  }
  return rank;
}

// The native runs of one (input, threads, variant): time-shared ones left out when others ran
// alone; medians of the rest.
NativeComparison combine(const std::vector<const RunFile*>& runs, const Measurements& m) {
  NativeComparison c;
  const RunFile& first = *runs.front();
  c.input = first.input;
  c.threads = first.threads;
  c.variant = first.variant;
  c.environment = first.knobs;
  const bool any_alone =
      std::any_of(runs.begin(), runs.end(), [](const RunFile* r) { return !r->time_shared; });
  std::vector<double> wall, cpu;
  for (const RunFile* run : runs) {
    if (any_alone && run->time_shared) {
      ++c.time_shared_left_out;
      continue;
    }
    wall.push_back(run->wall_ns * kSecondsPerNs);
    cpu.push_back(run->cpu_ns * kSecondsPerNs);
  }
  c.time_shared = !any_alone;
  c.repetitions = static_cast<int>(wall.size());
  c.native_s = stats::median(wall);
  c.min_s = stats::min(wall);
  c.max_s = stats::max(wall);
  c.native_cpu_s = stats::median(cpu);
  if (const ProgramPoint* p = program_point(m, c.input, c.threads)) c.measured_s = p->time;
  return c;
}

std::vector<NativeComparison> compare(const RunSet& runs, const Measurements& m) {
  std::map<std::tuple<int, int, int, std::string>, std::vector<const RunFile*>> by_config;
  for (const RunFile& run : runs.native) {
    if (run.signal || run.wall_ns <= 0.0) continue;  // cut short: no time to compare
    by_config[{run.input_index, run.threads, variant_rank(run.variant), run.variant}].push_back(
        &run);
  }
  std::vector<NativeComparison> out;
  for (const auto& [key, group] : by_config) out.push_back(combine(group, m));
  return out;
}

// "passive 1.52 s (3 runs, spread 4%)": a variant's measurement in words.
std::string measured_words(const NativeComparison& c) {
  return fmt::format("{} {:.4g} s ({} run{}, spread {:.0f}%)",
                     c.environment.empty() ? c.variant : c.environment, c.native_s, c.repetitions,
                     c.repetitions == 1 ? "" : "s", 100.0 * c.spread());
}

// The knob advice at one (input, threads): faster_setting() in words, or why none; never from a
// time-shared measurement.
void advise_knob(RuntimeReport& out, const std::vector<const NativeComparison*>& at) {
  const NativeComparison* own = nullptr;
  for (const NativeComparison* c : at) {
    if (c->variant == "libgomp") own = c;
  }
  if (own == nullptr || at.size() < 2) return;
  if (own->time_shared) {
    out.summary += fmt::format(
        ". The runtime settings are not compared at {} threads: every run of the application on "
        "its own runtime there was time-shared",
        own->threads);
    return;
  }
  std::vector<std::string> others;
  for (const NativeComparison* c : at) {
    if (c == own) continue;
    others.push_back(c->time_shared
                         ? fmt::format("{}: every run time-shared, not compared", c->variant)
                         : measured_words(*c));
  }
  const NativeComparison* best = faster_setting(at);
  out.summary += fmt::format(". Runtime settings at {} threads, without the tool: as it is {}; {}",
                             own->threads, measured_words(*own), fmt::join(others, "; "));
  if (best == nullptr) {
    out.knob_advice =
        "keep the runtime's defaults: no setting measured faster beyond the runs' "
        "spread";
    return;
  }
  const std::string how = best->variant == "libomp"
                              ? "run it on libomp (build it with clang -fopenmp, or put a "
                                "directory holding libgomp.so.1 -> libomp.so.5 first on "
                                "LD_LIBRARY_PATH, as ompscan does)"
                              : "set " + best->environment;
  out.knob_advice = fmt::format(
      "{}: {:.4g} s against {:.4g} s as it is, {:.4g} s gained (medians "
      "of {} and {} runs, ranges apart)",
      how, best->native_s, own->native_s, own->native_s - best->native_s, best->repetitions,
      own->repetitions);
  out.knob = best->variant == "libomp" ? "libomp" : best->environment;
  out.knob_gain_s = own->native_s - best->native_s;
}

// The comparison at the largest thread count of the reference input, in words.
void find(RuntimeReport& out, const std::string& reference_input) {
  int threads = 0;
  for (const NativeComparison& c : out.native) {
    if (c.input == reference_input && c.measured_s > 0.0) threads = std::max(threads, c.threads);
  }
  std::vector<const NativeComparison*> at;
  const NativeComparison* own = nullptr;
  for (const NativeComparison& c : out.native) {
    if (c.input != reference_input || c.threads != threads) continue;
    at.push_back(&c);
    if (c.variant == "libgomp") own = &c;
  }
  if (own == nullptr) return;
  const std::string own_name =
      basename(out.native_library).empty() ? "libgomp" : basename(out.native_library);
  const std::string measured = basename(out.library).empty() ? "libomp" : basename(out.library);
  out.summary += fmt::format(
      ". On its own runtime ({}) it took {:.4g} s at {} threads against {:.4g} s on {} (measured, "
      "with the tool)",
      own_name, own->native_s, own->threads, own->measured_s, measured);
  const double r = own->ratio();
  if (own->time_shared) {
    out.summary += " (every run on its own runtime there was time-shared: no comparison)";
  } else if (r >= kAlike) {
    out.summary += fmt::format(": {:.1f}x slower on its own runtime", r);
  } else if (r <= 1.0 / kAlike) {
    out.summary += fmt::format(": {:.1f}x faster on its own runtime", 1.0 / r);
    out.advice = fmt::format(
        "the losses below are {}'s: on {} the program is faster, and its regions may lose time "
        "differently",
        measured, own_name);
  } else {
    out.summary +=
        fmt::format(": the runtimes perform alike here (within {:.0f}%)", 100.0 * (kAlike - 1.0));
  }
  advise_knob(out, at);
  if (!out.knob.empty()) out.advice = out.knob_advice;
}

}  // namespace

std::string measured_runtime_words(const RuntimeReport& runtime) {
  // A wrapper script's runs name no library: the runtime's own version tells it.
  std::string out = !runtime.library.empty()                            ? basename(runtime.library)
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

const NativeComparison* faster_setting(const std::vector<const NativeComparison*>& at) {
  const NativeComparison* own = nullptr;
  const NativeComparison* best = nullptr;
  double largest_spread = 0.0;
  for (const NativeComparison* c : at) {
    if (c->time_shared) continue;
    largest_spread = std::max(largest_spread, c->max_s - c->min_s);
    if (c->variant == "libgomp") {
      own = c;
    } else if (best == nullptr || c->native_s < best->native_s) {
      best = c;
    }
  }
  if (own == nullptr || best == nullptr) return nullptr;
  const double gain = own->native_s - best->native_s;
  const bool beats =
      best->max_s < own->min_s && gain >= 0.02 * own->native_s && gain > largest_spread;
  return beats ? best : nullptr;
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

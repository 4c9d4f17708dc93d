#include "regions/report/machine_costs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "common/json_input.h"
#include "common/statistics.h"
#include "regions/report/read_runs.h"

namespace ompscale::regions::report {

namespace {

// The probe's loop: iterations per thread (regions/probe/probe.cc), and the chunks per thread of
// its two dynamic loops (chunk 1 and chunk 16).
constexpr double kChunksAtOne = 1024.0;
constexpr double kChunksAtSixteen = 1024.0 / 16.0;

// One repetition of the probe: its derived costs.
MachineCosts derive(const JsonNode& probe) {
  MachineCosts c;
  const JsonNode start = probe.field("start");
  c.init_s = start.field("init_ns").number() * kSecondsPerNs;
  c.team_s = start.field("team_ns").number() * kSecondsPerNs;
  const JsonNode loop = probe.field("loop");
  const double at_one = loop.field("dynamic1_ns").number();
  const double at_sixteen = loop.field("dynamic16_ns").number();
  const double fixed = loop.field("static_ns").number();
  // Each dynamic execution: a fixed cost over static, and a dispatch per chunk.
  const double per_chunk = std::max(0.0, (at_one - at_sixteen) / (kChunksAtOne - kChunksAtSixteen));
  c.chunk_s = per_chunk * kSecondsPerNs;
  c.dynamic_fixed_s =
      std::max(0.0, at_sixteen - fixed - kChunksAtSixteen * per_chunk) * kSecondsPerNs;
  c.task_s = probe.field("task_ns").number() * kSecondsPerNs;
  c.line_s = probe.field("line_ns").number() * kSecondsPerNs;
  return c;
}

// The median of each cost over the repetitions.
MachineCosts median_of(const std::vector<MachineCosts>& all) {
  MachineCosts out = all.front();
  for (double MachineCosts::*field :
       {&MachineCosts::init_s, &MachineCosts::team_s, &MachineCosts::chunk_s,
        &MachineCosts::dynamic_fixed_s, &MachineCosts::task_s, &MachineCosts::line_s}) {
    std::vector<double> values;
    for (const MachineCosts& c : all) values.push_back(c.*field);
    out.*field = stats::median(values);
  }
  return out;
}

MachineCosts read_probe_file(const ProbeFile& file) {
  const JsonDocument doc(file.content, file.path);
  const JsonNode root = doc.root();
  const std::string runtime = root.field("runtime").string();
  if (runtime != "libomp" && runtime != "libgomp") {
    root.field("runtime").fail(fmt::format("'{}' is neither libomp nor libgomp", runtime));
  }
  const int threads = static_cast<int>(root.field("threads").integer(1, 1 << 20));
  std::vector<MachineCosts> alone;
  int shared = 0;
  const std::vector<JsonNode> runs = root.field("runs").elements();
  for (const JsonNode& run : runs) {
    if (run.field("time_shared").boolean()) {
      ++shared;
      continue;
    }
    alone.push_back(derive(run.field("probe")));
  }
  MachineCosts out;
  if (!alone.empty()) out = median_of(alone);
  out.runtime = runtime;
  out.threads = threads;
  out.measured = !alone.empty();
  const std::string name = std::filesystem::path(file.path).filename().string();
  out.source = out.measured
                   ? fmt::format(
                         "measured by ompscan run before its runs ({}, {} of {} repetitions, {} "
                         "threads{})",
                         name, alone.size(), runs.size(), threads,
                         shared > 0 ? fmt::format("; {} time-shared left out", shared) : "")
                   : fmt::format("{}: every repetition was time-shared", name);
  return out;
}

}  // namespace

std::string runtime_family(const std::string& library) {
  const std::string base = std::filesystem::path(library).filename().string();
  if (base.starts_with("libgomp")) return "libgomp";
  if (base.starts_with("libomp") || base.starts_with("libiomp")) return "libomp";
  return "";
}

std::vector<MachineCosts> read_machine_costs(const std::vector<ProbeFile>& files) {
  std::vector<MachineCosts> out;
  for (const ProbeFile& f : files) out.push_back(read_probe_file(f));
  return out;
}

MachineCosts costs_for(const std::vector<MachineCosts>& measured, const std::string& runtime,
                       int threads) {
  const MachineCosts* best = nullptr;
  std::string unmeasured;
  for (const MachineCosts& c : measured) {
    if (c.runtime != runtime) continue;
    if (!c.measured) {
      unmeasured = c.source;
      continue;
    }
    if (best == nullptr || std::abs(c.threads - threads) < std::abs(best->threads - threads)) {
      best = &c;
    }
  }
  if (best != nullptr) return *best;
  // Orders of magnitude of current x86 machines, not this one's: every price says so.
  MachineCosts assumed;
  assumed.runtime = runtime;
  assumed.chunk_s = 100e-9;
  assumed.dynamic_fixed_s = 1e-6;
  assumed.task_s = 1e-6;
  assumed.line_s = 100e-9;
  assumed.source = fmt::format(
      "assumed ({}): 100 ns per chunk dispatched, 1 us per dynamic loop execution, 1 us per "
      "explicit task, 100 ns per cache line moved",
      unmeasured.empty() ? fmt::format("no measurement of {} on this machine in the run "
                                       "directory; ompscan run makes one",
                                       runtime)
                         : unmeasured);
  return assumed;
}

}  // namespace ompscale::regions::report

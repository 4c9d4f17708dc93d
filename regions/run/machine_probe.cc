#include "regions/run/machine_probe.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/child_process.h"
#include "common/executable_path.h"
#include "common/output_file.h"
#include "regions/run/cpu_share.h"

namespace ompscale::regions {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr char kProbeName[] = "ompscan-probe";
// The probe takes well under a second on a quiet machine; a busy one may stretch it.
constexpr std::chrono::seconds kProbeTimeLimit{60};

// One repetition: the probe's result and whether it had its CPUs; null after a failure (`why`).
json probe_once(const ProbeRequest& request, const ProbeRuntime& runtime, std::string& why) {
  ChildOptions options;
  options.argv = {request.probe, std::to_string(request.threads)};
  options.environment = runtime.environment;
  options.stdout_to = ChildStream::pipe();
  options.stderr_to = ChildStream::pipe();
  options.own_process_group = true;
  CpuShare share;
  share.start();
  const auto started = std::chrono::steady_clock::now();
  CapturedRun run;
  try {
    run = run_captured(options, kProbeTimeLimit);
  } catch (const std::exception& e) {
    why = e.what();
    return nullptr;
  }
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (run.timed_out || run.status.shell_code() != 0) {
    why = run.timed_out ? "timed out" : run.status.describe() + ": " + run.err;
    return nullptr;
  }
  json probe = json::parse(run.out, nullptr, false);
  if (!probe.is_object() || probe.value("format", "") != "ompscan-probe-1") {
    why = "printed no ompscan-probe-1 result";
    return nullptr;
  }
  const ResourceUse& use = run.status.usage;
  const TimeSharing sharing =
      share.stop(request.threads, wall, static_cast<double>(use.user_ns + use.system_ns) * 1e-9,
                 use.involuntary_switches);
  return {{"time_shared", sharing.time_shared},
          {"reason", sharing.reason},
          {"cpus_free", sharing.cpus_free},
          {"probe", std::move(probe)}};
}

}  // namespace

std::string locate_probe() {
  const fs::path directory = executable_directory();
  std::error_code error;
  if (directory.empty() || !fs::is_regular_file(directory / kProbeName, error)) return "";
  return (directory / kProbeName).string();
}

std::vector<std::string> measure_machine_costs(const ProbeRequest& request) {
  std::vector<std::string> failures;
  for (const ProbeRuntime& runtime : request.runtimes) {
    const fs::path file = fs::path(request.directory) / ("probe-" + runtime.runtime + ".json");
    std::error_code error;
    if (!request.force && fs::exists(file, error)) continue;
    json runs = json::array();
    std::string why;
    for (int r = 0; r < request.repetitions; ++r) {
      json one = probe_once(request, runtime, why);
      if (one.is_null()) break;
      runs.push_back(std::move(one));
    }
    if (runs.empty()) {
      failures.push_back(
          fmt::format("the machine's {} costs were not measured ({} {}: {}): the "
                      "report assumes them",
                      runtime.runtime, kProbeName, request.threads, why));
      continue;
    }
    const json out = {{"format", "ompscan-probe-run-1"}, {"runtime", runtime.runtime},
                      {"library", runtime.library},      {"threads", request.threads},
                      {"probe", request.probe},          {"runs", std::move(runs)}};
    write_output(file.string(), out.dump(2) + "\n");
  }
  return failures;
}

}  // namespace ompscale::regions

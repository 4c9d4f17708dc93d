#include "regions/run/run_file.h"

#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.h"

namespace ompscale::regions {

namespace {

using nlohmann::json;

json optional_string(const std::optional<std::string>& value) {
  return value ? json(*value) : json(nullptr);
}

std::string slurp(const std::string& path, bool& exists) {
  std::ifstream in(path, std::ios::binary);
  exists = static_cast<bool>(in);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string signal_name(int number) {
  const char* abbreviation = sigabbrev_np(number);
  return abbreviation != nullptr ? std::string("SIG") + abbreviation : std::to_string(number);
}

}  // namespace

bool run_succeeded(const LaunchResult& launch, int expected) {
  return launch.end == LaunchResult::End::kExited && launch.exit_status == expected;
}

const char* run_status(const LaunchResult& launch, int expected) {
  return run_succeeded(launch, expected) ? "ok" : "failed";
}

json run_file_json(const RunRecord& record) {
  const PlannedRun& run = record.run;
  const LaunchResult& launch = record.launch;
  json file;
  file["format"] = kRunFormat;
  file["run_id"] = run.id;
  file["command"] = run.command;
  file["template"] = record.command_template;
  file["threads"] = run.threads;
  file["input"] = run.input_index ? json(run.input) : json(nullptr);
  file["input_index"] = run.input_index ? json(*run.input_index) : json(nullptr);
  file["repetition"] = run.repetition;
  file["bind"] = optional_string(record.bind);
  file["places"] = optional_string(record.places);
  file["oversubscribed"] = run.oversubscribed;
  file["started"] = record.started;
  file["status"] = run_status(launch, record.expected_exit);
  file["expected_exit_status"] = record.expected_exit;
  const bool exited = launch.end == LaunchResult::End::kExited;
  const bool exec_failed = launch.end == LaunchResult::End::kExecFailed;
  file["exit_status"] = exited ? json(launch.exit_status) : exec_failed ? json(127) : json(nullptr);
  file["signal"] = exited || exec_failed ? json(nullptr) : json(launch.signal);
  if (!exited && !exec_failed) file["signal_name"] = signal_name(launch.signal);
  file["timed_out"] = launch.end == LaunchResult::End::kTimedOut;
  if (exec_failed) file["error"] = "cannot execute " + run.command.front() + ": " + launch.error;
  file["wall_ns"] = launch.wall_ns;
  file["cpu"] = {{"user_ns", launch.user_ns},
                 {"system_ns", launch.system_ns},
                 {"max_rss_kib", launch.max_rss_kib},
                 {"minor_faults", launch.minor_faults},
                 {"involuntary_switches", launch.involuntary_switches}};
  const TimeSharing& sharing = record.time_sharing;
  file["time_sharing"] = {{"known", sharing.known},
                          {"cpus_allowed", sharing.cpus_allowed},
                          {"others_cpu_s", sharing.others_cpu_s},
                          {"steal_s", sharing.steal_s},
                          {"cpus_free", sharing.cpus_free},
                          {"time_shared", sharing.time_shared},
                          {"reason", sharing.reason}};
  file["runtime"] = {
      {"library", record.runtime_library.empty() ? json(nullptr) : json(record.runtime_library)},
      {"gomp_abi", record.gomp_abi}};
  file["native"] = record.native;
  if (record.native) file["variant"] = record.run.variant;
  if (record.process_tree_shim) file["runtime"]["process_tree_shim"] = true;

  if (record.energy_reason.empty()) {
    file["energy"] = {{"available", true}, {"skipped", record.energy.skipped}};
    file["energy_joules"] = record.energy.joules;
  } else {
    file["energy"] = {{"available", false}, {"reason", record.energy_reason}};
  }
  if (record.counters_reason.empty()) {
    file["counters"] = {{"available", true}, {"scope", "user"}, {"scaled", record.counters_scaled}};
    for (const auto& [name, value] : record.counters) file[name] = value;
  } else {
    file["counters"] = {{"available", false}, {"reason", record.counters_reason}};
  }

  file["profile"] = record.profile;
  file["profile_error"] = record.profile_error;
  file["tool"] = record.tool;
  file["log"] = record.log;
  json environment = json::object();
  for (const auto& [name, value] : record.openmp_environment) environment[name] = value;
  file["environment"] = environment;
  file["host"] = record.host;
  file["hardware_threads"] = record.hardware_threads;
  file["ompscan_version"] = version_string();
  return file;
}

json read_profile(const std::string& path, const LaunchResult& launch, std::string& error) {
  bool exists = false;
  const std::string text = slurp(path, exists);
  if (!exists) {
    if (launch.end == LaunchResult::End::kExited)
      error =
          "the tool wrote no profile: the application did not start the OpenMP runtime, the "
          "runtime did not load the tool, or the application left without finalizing it "
          "(_exit, abort)";
    else
      error =
          "the tool wrote no profile: the application was ended by a signal before the "
          "runtime finalized";
    return nullptr;
  }
  try {
    json profile = json::parse(text);
    if (!profile.is_object()) {
      error = "the tool's profile is not a JSON object";
      return nullptr;
    }
    error.clear();
    return profile;
  } catch (const json::exception& e) {
    error = std::string("the tool's profile is not valid JSON: ") + e.what();
    return nullptr;
  }
}

bool run_file_complete(const std::string& path, const PlannedRun& planned,
                       const std::optional<std::string>& bind,
                       const std::optional<std::string>& places) {
  bool exists = false;
  const std::string text = slurp(path, exists);
  if (!exists) return false;
  json file;
  try {
    file = json::parse(text);
  } catch (const json::exception&) {
    return false;
  }
  if (!file.is_object() || file.value("format", "") != kRunFormat ||
      file.value("run_id", "") != planned.id || !file.contains("status") ||
      file.value("native", false) != planned.native)
    return false;

  const json input = planned.input_index ? json(planned.input) : json(nullptr);
  const std::vector<std::pair<const char*, json>> expected = {{"command", planned.command},
                                                              {"threads", planned.threads},
                                                              {"input", input},
                                                              {"bind", optional_string(bind)},
                                                              {"places", optional_string(places)}};
  for (const auto& [field, value] : expected) {
    const json recorded = file.contains(field) ? file[field] : json(nullptr);
    if (recorded != value)
      throw UsageError(fmt::format(
          "{} is a run of another configuration ({} {} there, {} now); use another -o DIR, or "
          "--force to replace its runs",
          path, field, recorded.dump(), value.dump()));
  }
  return true;
}

}  // namespace ompscale::regions

#include "microbench/driver/sidecar.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/host_name.h"
#include "common/json_input.h"
#include "common/output_file.h"
#include "common/text.h"

extern char** environ;

namespace ompscale::microbench {

namespace {

constexpr const char* kFormat = "ompbench-sidecar-1";

nlohmann::json load_sidecar(const std::string& path) {
  if (!std::filesystem::exists(path))
    return {{"format", kFormat}, {"runs", nlohmann::json::array()}};
  const std::string text = read_input(path);
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // syntax, or a number beyond a double
    throw InputError(path, 0,
                     std::string("not valid JSON (") + json_error_cause(e) +
                         "); move it away or choose another --meta");
  }
  if (!doc.is_object() || doc.value("format", "") != kFormat || !doc["runs"].is_array())
    throw InputError(path, 0,
                     std::string("not an ompbench sidecar (no \"format\": \"") + kFormat +
                         "\"); move it away or choose another --meta");
  return doc;
}

nlohmann::json runtime_environment() {
  nlohmann::json env = nlohmann::json::object();
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string item = *entry;
    const std::string name = item.substr(0, item.find('='));
    if (name.rfind("OMP_", 0) == 0 || name.rfind("GOMP_", 0) == 0 || name.rfind("KMP_", 0) == 0 ||
        name.rfind("LIBOMP_", 0) == 0)
      env[name] = item.substr(item.find('=') + 1);
  }
  return env;
}

}  // namespace

void check_sidecar(const std::string& path) {
  load_sidecar(path);
}

void append_run(const std::string& path, const RunRecord& run) {
  nlohmann::json doc = load_sidecar(path);
  const std::string host = host_name();

  nlohmann::json workers = nlohmann::json::object();
  for (const auto& [name, w] : run.workers)
    workers[name] = {{"runtime", w.runtime},
                     {"runtime_version", w.runtime_version},
                     {"compiler", w.compiler},
                     {"library", w.library_path},
                     {"compiler_flags", w.flags},
                     {"hardware_threads", w.hardware_threads},
                     {"clock",
                      {{"source", w.clock_source},
                       {"tsc_invariant", w.tsc_invariant},
                       {"ticks_per_second", w.ticks_per_second},
                       {"step_ns", w.step_ns},
                       {"read_cost_ns", w.read_cost_ns}}}};
  nlohmann::json calibrations = nlohmann::json::array();
  for (const CalibrationFacts& c : run.calibrations) {
    nlohmann::json item = {{"runtime", c.runtime},
                           {"bind", c.bind},
                           {"places", c.places},
                           {"round", c.round},
                           {"kind", c.kind}};
    const auto number = [&](std::size_t i) {
      return i < c.fields.size() ? parse_double(c.fields[i]).value_or(0.0) : 0.0;
    };
    if (c.kind == "calibration") {
      item.update({{"threads", static_cast<int>(number(0))},
                   {"thread", static_cast<int>(number(1))},
                   {"offset_ns", number(2)},
                   {"lower_ns", number(3)},
                   {"upper_ns", number(4)},
                   {"uncertainty_ns", number(5)},
                   {"min_round_trip_ns", number(6)},
                   {"median_round_trip_ns", number(7)},
                   {"drift_ppm", number(8)},
                   {"exchanges", static_cast<int>(number(9))}});
    } else if (c.kind == "causality") {
      item.update({{"threads", static_cast<int>(number(0))},
                   {"checks", static_cast<int>(number(1))},
                   {"violations", static_cast<int>(number(2))},
                   {"worst_ns", number(3)}});
    } else if (c.kind == "window") {
      item.update({{"threads", static_cast<int>(number(0))},
                   {"window_ns", number(1)},
                   {"pilot_latency_ns", number(2)},
                   {"rounds", static_cast<int>(number(3))},
                   {"late_rounds", static_cast<int>(number(4))},
                   {"overrun_rounds", static_cast<int>(number(5))},
                   {"inconsistent_rounds", static_cast<int>(number(6))}});
    }
    calibrations.push_back(std::move(item));
  }
  nlohmann::json record = {
      {"run_id", run.run_id},
      {"started", run.started},
      {"finished", run.finished},
      {"status", run.status},
      {"command", run.command},
      {"ompscale_version", version_string()},
      {"host", host},
      {"cpu_model", cpu_model()},
      {"platform", nlohmann::json::parse(run.platform_json.empty() ? "null" : run.platform_json)},
      {"topology", nlohmann::json::parse(run.detected_json.empty() ? "null" : run.detected_json)},
      {"environment", runtime_environment()},
      {"workers", workers},
      {"calibrations", calibrations},
      {"noise",
       {{"canary",
         "median cross-core round trip (ns) before and after each batch; the "
         "larger of the two is the batch's canary_ns"},
        {"reference_ns", run.canary_reference_ns},
        {"machine_typical_ns", run.canary_typical_ns},
        {"waited_seconds", run.waited_seconds},
        {"machine_lock_waited_seconds", run.machine_lock_waited_seconds},
        {"slow_factor", run.slow_factor},
        {"batches", run.batches},
        {"slow_batches_remeasured", run.slow_batches},
        {"slow_batches_accepted", run.accepted_slow},
        {"invalid_values", run.invalid_values},
        {"canary_ns", run.canary_ns},
        {"compute_canary",
         "median time of a fixed chain of dependent integer operations (ns), "
         "the slower of two threads, before and after each batch; the larger"},
        {"compute_reference_ns", run.compute_reference_ns},
        {"compute_slow_factor", run.compute_slow_factor},
        {"compute_canary_ns", run.compute_canary_ns}}},
      {"oversubscribed", run.oversubscribed},
      {"unavailable", run.unavailable},
      {"incomplete", run.incomplete},
      {"errors", run.errors},
      {"warnings", run.warnings}};
  doc["runs"].push_back(std::move(record));
  write_output(path, doc.dump(2) + "\n");
}

}  // namespace ompscale::microbench

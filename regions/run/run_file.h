#pragma once
// The run file (docs/ompscan-formats.md, "Run file"): one JSON document per run, DIR/<id>.json,
// written atomically. Also reads back what a run left: the tool's profile, and for resume an
// existing run file.

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "regions/run/cpu_share.h"
#include "regions/run/launcher.h"
#include "regions/run/plan.h"
#include "regions/run/rapl.h"

namespace ompscale::regions {

inline constexpr char kRunFormat[] = "ompscan-run-1";

/// Everything one run file says.
struct RunRecord {
  PlannedRun run;
  std::vector<std::string> command_template;  // the command as typed, placeholders and all
  std::optional<std::string> bind;            // OMP_PROC_BIND the application saw; nullopt: unset
  std::optional<std::string> places;          // OMP_PLACES likewise
  std::string started;                        // UTC, ISO 8601
  LaunchResult launch;

  std::string runtime_library;  // the OpenMP runtime the loader maps; "" = none found
  bool gomp_abi = false;        // a GCC binary run on libomp's GOMP ABI
  bool native = false;          // on the application's own runtime, without the tool
  int expected_exit = 0;        // --expect-exit
  bool process_tree_shim = false;  // APP is not an ELF binary: the shim for all it starts

  TimeSharing time_sharing;   // whether the run had its CPUs
  std::string energy_reason;  // "" when energy was measured
  EnergyReading energy;
  std::string counters_reason;  // "" when the counters were read
  std::map<std::string, std::uint64_t> counters;
  bool counters_scaled = false;

  nlohmann::json profile;     // null when the tool wrote none
  std::string profile_error;  // why profile is null

  // Provenance.
  std::string tool;
  std::string log;  // the application's output, relative to the run file's directory
  std::vector<std::pair<std::string, std::string>> openmp_environment;
  std::string host;
  int hardware_threads = 0;
};

/// The application exited by itself with status `expected` (0 unless --expect-exit).
bool run_succeeded(const LaunchResult& launch, int expected = 0);
/// "ok" when the run succeeded, else "failed".
const char* run_status(const LaunchResult& launch, int expected = 0);

nlohmann::json run_file_json(const RunRecord& record);

/// The tool's profile at `path`: the JSON object, or null with `error` saying why there is none
/// (no file, which usually means the runtime never finalized, or invalid JSON). `launch` words
/// the reason.
nlohmann::json read_profile(const std::string& path, const LaunchResult& launch,
                            std::string& error);

/// Whether `path` already holds the complete run file of `planned` (resume skips it). A missing,
/// unreadable or incomplete file is not complete. Throws UsageError when it is the complete run
/// file of another configuration (command, threads, input, binding): resuming into it would mix
/// two experiments.
bool run_file_complete(const std::string& path, const PlannedRun& planned,
                       const std::optional<std::string>& bind,
                       const std::optional<std::string>& places);

}  // namespace ompscale::regions

#pragma once
// The facts the dashboard keeps from an ompbench sidecar (FILE.meta.json, format
// "ompbench-sidecar-1", written by microbench/driver/sidecar.h): per run its host, start, status,
// command, workers (runtime, version, compiler, library, flags, clock), environment and canaries.

#include <map>
#include <string>
#include <string_view>

namespace ompscale::dashboard {

struct SidecarRun {
  std::string run_id;
  std::string host;
  std::string started;
  std::string status;
  std::string ompscale_version;
  std::string command_json = "[]";
  std::string workers_json = "{}";  ///< per worker: runtime, version, compiler, library, clock
  std::string environment_json = "{}";
  double canary_reference_ns = 0.0;
  double canary_typical_ns = 0.0;
  double canary_median_ns = 0.0;  ///< median of every batch's canary
  double compute_reference_ns = 0.0;
  double slow_factor = 1.5;
  /// Its reference round trip is above the machine's typical one by more than the slow factor
  /// (or, without both, the run said it measured in an unusual phase). A faster state is not
  /// unusual: the typical state changed; phase_note says so.
  bool unusual_phase = false;
  std::string phase_note;
  std::string record_json;  ///< the record as read, for the run's fingerprint
};

/// The runs of the sidecar text, by run_id. InputError (naming `file` and the place) for text that
/// is not an ompbench sidecar.
std::map<std::string, SidecarRun> parse_sidecar(std::string_view text, const std::string& file);

/// The same for the file at `path`; an empty map when there is no such file.
std::map<std::string, SidecarRun> read_sidecar(const std::string& path);

}  // namespace ompscale::dashboard

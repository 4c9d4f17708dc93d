#include "microbench/driver/canary_store.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "common/host_name.h"
#include "common/output_file.h"
#include "common/utc_time.h"
#include "microbench/result_row.h"

namespace ompscale::microbench {

namespace {

nlohmann::json load_store(const std::string& path) {
  std::error_code error;
  if (path.empty() || !std::filesystem::exists(path, error)) return nlohmann::json::object();
  try {
    nlohmann::json doc = nlohmann::json::parse(read_input(path));
    return doc.is_object() ? doc : nlohmann::json::object();
  } catch (const std::exception&) {
    return nlohmann::json::object();  // a damaged store is ignored and rewritten
  }
}

}  // namespace

CanaryStore::CanaryStore(const std::string& path) {
  if (path == "none") return;
  if (!path.empty()) {
    path_ = path;
  } else if (const char* env = std::getenv("OMPBENCH_CANARY_STORE"); env != nullptr && *env) {
    path_ = std::string(env) == "none" ? "" : env;
  } else if (const char* cache = std::getenv("XDG_CACHE_HOME"); cache != nullptr && *cache) {
    path_ = std::string(cache) + "/ompscale/canaries.json";
  } else if (const char* home = std::getenv("HOME"); home != nullptr && *home) {
    path_ = std::string(home) + "/.cache/ompscale/canaries.json";
  }
}

std::string CanaryStore::machine_key(int hardware_threads) {
  const std::string cpu = cpu_model();
  return fmt::format("{} | {} | {} hardware threads", host_name(),
                     cpu.empty() ? "unknown CPU" : cpu, hardware_threads);
}

double CanaryStore::typical_round_trip_ns(const std::string& machine) const {
  const nlohmann::json doc = load_store(path_);
  if (!doc.contains(machine) || !doc[machine].is_array()) return 0;
  std::vector<double> values;
  for (const nlohmann::json& run : doc[machine])
    if (const double value = run.value("round_trip_ns", 0.0); value > 0) values.push_back(value);
  if (values.size() < static_cast<std::size_t>(kMinimumRuns)) return 0;
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

std::string CanaryStore::record(const std::string& machine, double round_trip_ns) const {
  if (!enabled() || round_trip_ns <= 0) return "";
  nlohmann::json doc = load_store(path_);
  nlohmann::json& runs = doc[machine];
  if (!runs.is_array()) runs = nlohmann::json::array();
  runs.push_back({{"time", utc_timestamp()}, {"round_trip_ns", round_trip_ns}});
  while (runs.size() > static_cast<std::size_t>(kHistory)) runs.erase(runs.begin());
  try {
    std::filesystem::create_directories(std::filesystem::path(path_).parent_path());
    write_output(path_, doc.dump(1) + "\n");
  } catch (const std::exception& e) {
    return fmt::format("cannot update the canary store {}: {}", path_, e.what());
  }
  return "";
}

}  // namespace ompscale::microbench

#pragma once
// Generated ompbench results (CSV and sidecar) for the dashboard tests: runs with chosen
// per-configuration values, so a history with a known step, drift or growth change can be built
// in milliseconds.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "../support/process.h"

namespace ompscale::dashboard::testing {

struct FixtureConfig {
  std::string construct = "barrier";
  std::string method = "direct";
  std::string metric = "avg_cost";
  std::string bind = "spread";
  std::string runtime = "libgomp";
  std::string runtime_version = "12.2.0";
  int threads = 2;
  std::vector<double> values;
  std::vector<bool> invalid;  ///< values marked valid=0 (same length or empty)
};

struct FixtureRun {
  std::string run_id = "r1";
  std::string date = "2026-11-22T01:00:00Z";
  std::string host = "node1";
  std::string platform = "vm";
  bool unusual_phase = false;
  double canary_ns = 420;   ///< the run's round trip (its reference and canaries)
  double typical_ns = 420;  ///< the machine's typical round trip, as ompbench's store knew it
  std::vector<FixtureConfig> configs;
};

inline std::string results_csv(const FixtureRun& run) {
  std::string out =
      "construct,method,metric,threads,thread_class,bind,places,runtime,runtime_version,compiler,"
      "platform,param,param_value,rep,value,unit,valid,canary_ns,run_id,timestamp,"
      "oversubscribed\n";
  for (const FixtureConfig& c : run.configs) {
    for (std::size_t i = 0; i < c.values.size(); ++i) {
      const bool valid = c.invalid.empty() || !c.invalid[i];
      out += fmt::format(
          "{},{},{},{},PO2,{},cores,{},{},gcc-12.2.0,{},,,{},{:.6f},us,{},{:.0f},{},{},0\n",
          c.construct, c.method, c.metric, c.threads, c.bind, c.runtime, c.runtime_version,
          run.platform, i, c.values[i], valid ? 1 : 0, run.canary_ns, run.run_id, run.date);
    }
  }
  return out;
}

inline std::string sidecar_json(const std::vector<FixtureRun>& runs) {
  std::string records;
  for (const FixtureRun& r : runs) {
    if (!records.empty()) records += ",";
    records += fmt::format(
        R"json({{"run_id": "{}", "started": "{}", "finished": "{}", "status": "complete",
            "host": "{}", "ompscale_version": "0.1.0 (git test)", "command": ["ompbench"],
            "environment": {{"OMP_WAIT_POLICY": "active"}},
            "workers": {{"gnu": {{"runtime": "libgomp", "runtime_version": "12.2.0",
                         "compiler": "gcc-12.2.0", "library": "/lib/libgomp.so.1",
                         "compiler_flags": "-O3", "hardware_threads": 2,
                         "clock": {{"source": "tsc", "ticks_per_second": 2.1e9}}}}}},
            "noise": {{"reference_ns": {}, "machine_typical_ns": {}, "slow_factor": 1.5,
                       "canary_ns": [{}, {}, {}], "compute_reference_ns": 4000}},
            "warnings": [{}]}})json",
        r.run_id, r.date, r.date, r.host, r.unusual_phase ? 900 : r.canary_ns, r.typical_ns,
        r.canary_ns - 10, r.canary_ns, r.canary_ns + 10,
        r.unusual_phase ? R"("measured in an unusual phase: round trip 900 ns")" : "");
  }
  return fmt::format(R"({{"format": "ompbench-sidecar-1", "runs": [{}]}})", records) + "\n";
}

/// Writes DIR/NAME (results) and DIR/NAME.meta.json for one run; returns the results path.
inline std::string write_run(const std::filesystem::path& dir, const std::string& name,
                             const FixtureRun& run) {
  const std::filesystem::path path = dir / name;
  test_support::spit(path, results_csv(run));
  test_support::spit(path.string() + ".meta.json", sidecar_json({run}));
  return path.string();
}

/// `n` values around `center` with relative spread `noise` (normal, fixed seed).
inline std::vector<double> noisy(double center, double noise, int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal(0.0, noise);
  std::vector<double> out;
  for (int i = 0; i < n; ++i) out.push_back(center * std::exp(normal(rng)));
  return out;
}

/// "2026-11-DDT01:00:00Z" for night `day` (0-based from 2026-10-01), for ordered dates.
inline std::string night(int day) {
  const int month = 10 + day / 30;
  return fmt::format("2026-{:02d}-{:02d}T01:00:00Z", month, 1 + day % 30);
}

/// cost(construct, threads) of one night; 1.0 is the baseline level.
using CostOfNight = std::function<double(const std::string&, int)>;

/// The baseline level for every construct on every night: nothing changes.
inline const CostOfNight kUnchanged = [](const std::string&, int) { return 1.0; };

/// Night `n` of a generated history: three constructs (barrier, single, for) at `threads`, 30
/// repetitions each with 3% spread around a level with 2% night-to-night noise per kernel, times
/// cost(construct, threads), added to `r` (its date, canaries and phase as given; its run id
/// "nN"). The seeds are fixed: night n is the same in every test.
inline FixtureRun generated_night_of(int n, const CostOfNight& cost, FixtureRun r,
                                     const std::vector<int>& threads = {1, 2}) {
  r.run_id = fmt::format("n{}", n);
  unsigned seed = 1000u * static_cast<unsigned>(n);
  for (const char* construct : {"barrier", "single", "for"}) {
    for (int t : threads) {
      FixtureConfig c;
      c.construct = construct;
      c.threads = t;
      const double level = noisy(cost(construct, t), 0.02, 1, ++seed)[0];
      c.values = noisy(level, 0.03, 30, ++seed);
      r.configs.push_back(c);
    }
  }
  return r;
}

/// generated_night_of() dated night(n), in an unusual phase or not.
inline FixtureRun generated_night(int n, const CostOfNight& cost, bool unusual = false,
                                  const std::vector<int>& threads = {1, 2}) {
  FixtureRun r;
  r.date = night(n);
  r.unusual_phase = unusual;
  return generated_night_of(n, cost, r, threads);
}

/// A fresh, empty directory for the running test (named after it), under the system's temp dir.
inline std::filesystem::path scratch_directory(const std::string& prefix) {
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      fmt::format("{}-{}-{}", prefix, getpid(), test != nullptr ? test->name() : "suite");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

/// An ompscan report (JSON) of the mandelbrot runs in tests/data, made by ompscan itself, at
/// DIR/report.json; its path.
inline std::string ompscan_report(const std::filesystem::path& dir) {
  const std::string report = (dir / "report.json").string();
  const auto made = test_support::run_program(
      {OMPSCALE_OMPSCAN_BIN, "report", std::string(OMPSCALE_TEST_DATA) + "/ompscan/mandel-static",
       "--format", "json", "-o", report},
      dir);
  if (made.status != 0) throw std::runtime_error("ompscan report failed: " + made.err);
  return report;
}

}  // namespace ompscale::dashboard::testing

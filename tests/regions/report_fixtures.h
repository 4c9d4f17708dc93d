#pragma once
// The hand-made run directories of tests/data/ompscan (made by make_fixtures.py there), read and
// reported once per test binary, and lookups into a report.

#include <map>
#include <stdexcept>
#include <string>

#include "regions/report/read_runs.h"
#include "regions/report/report.h"

namespace ompscale::regions::report::testing {

/// tests/data/ompscan/<name>.
inline std::string fixture_dir(const std::string& name) {
  return std::string(OMPSCALE_TEST_DATA) + "/ompscan/" + name;
}

/// The report of fixture `name` with default options (built once, then cached).
inline const Report& fixture_report(const std::string& name) {
  static std::map<std::string, Report> cache;
  auto it = cache.find(name);
  if (it == cache.end()) {
    it = cache.emplace(name, build_report(read_run_directory(fixture_dir(name)))).first;
  }
  return it->second;
}

/// The region whose label is `label`; fails the test (and throws) when absent.
inline const RegionReport& region_by_label(const Report& report, const std::string& label) {
  for (const RegionReport& r : report.regions) {
    if (r.region.label == label) return r;
  }
  throw std::out_of_range("no region labelled " + label);
}

/// The point at `threads` of a series.
inline const PointAnalysis& point_at(const SeriesAnalysis& s, int threads) {
  for (const PointAnalysis& p : s.points) {
    if (p.threads == threads) return p;
  }
  throw std::out_of_range("no point at " + std::to_string(threads) + " threads");
}

}  // namespace ompscale::regions::report::testing

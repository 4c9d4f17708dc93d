#pragma once
// Everything the site shows, read from the history once: runs, series and their histories, model
// histories, every finding of the whole history, applications. Pages only format it.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "dashboard/analysis/findings.h"
#include "dashboard/analysis/machine_state.h"
#include "dashboard/analysis/regressions.h"
#include "dashboard/store/history.h"

namespace ompscale::dashboard::site {

struct SiteData {
  std::vector<RunInfo> runs;                ///< oldest first
  std::map<std::int64_t, RunState> states;  ///< per run: typical machine state or not
  std::map<std::int64_t, SeriesInfo> series;
  std::vector<SeriesHistory> histories;  ///< points of unusual runs marked unusual_phase
  std::vector<ModelHistory> models;
  RegressionReport all;     ///< findings over the whole history
  RegressionReport latest;  ///< findings about the latest night
  std::vector<AppReportInfo> apps;
  std::vector<std::string> metrics;  ///< the judged metrics (RegressionOptions::metrics)

  /// Histories of the series judged (primary metrics) of `construct`.
  std::vector<const SeriesHistory*> histories_of(const std::string& construct) const;
  /// The constructs with judged series, sorted.
  std::vector<std::string> constructs() const;
  bool judged(const SeriesInfo& s) const;
  /// The noise floor of a series at a thread count (NaN when unknown).
  double floor(std::int64_t series, int threads) const;
  /// The findings of the whole history (`all`) or of the latest night about a series.
  std::vector<const Finding*> findings_of(std::int64_t series, bool latest_night = false) const;

  /// Indices into all.findings and latest.findings by series, and the floors by series and
  /// thread count: pages look them up per kernel (index_findings() makes them).
  std::map<std::int64_t, std::vector<std::size_t>> all_by_series, latest_by_series;
  std::map<std::pair<std::int64_t, int>, double> floors;
  void index_findings();
};

SiteData load_site_data(Database& db, const RegressionOptions& options);

/// The page of a construct and of an application (file names).
std::string construct_page(const std::string& construct);
std::string application_page(const std::string& application);

}  // namespace ompscale::dashboard::site

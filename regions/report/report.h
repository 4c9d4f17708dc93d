#pragma once
// `ompscan report DIR` as data: the runs read, the regions aggregated and analysed, the POP
// efficiencies, the models, and notes on everything that limits them. The writers
// (regions/report/writers.h) only format this; docs/ompscan-report.md defines every number.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "regions/report/analysis.h"
#include "regions/report/models.h"
#include "regions/report/pop.h"
#include "regions/report/read_runs.h"
#include "regions/report/regions.h"
#include "regions/report/runtime.h"

namespace ompscale::regions::report {

struct ReportOptions {
  AnalysisOptions analysis;
  /// Thread counts for predictions; empty: 2x and 4x the largest measured thread count.
  std::vector<double> predict_at;
  /// Level of prediction intervals (default 0.9).
  double confidence = 0.90;
  /// Input whose analysis the text report details and whose gains sort the regions; empty: the
  /// last input (highest input_index).
  std::string input;
  /// One size per input in input order, for models over input size; empty: the input names
  /// read as numbers, when every one is a positive number.
  std::vector<double> input_sizes;
  /// Regions detailed in the text report and charted by --svg, by potential gain (default 5).
  std::size_t top = 5;
};

struct RegionReport {
  Region region;
  std::vector<SeriesAnalysis> series;  ///< one per input the region was measured at
  std::size_t reference = 0;           ///< the series of the reference input (else the last one)
  double potential_gain = 0.0;         ///< series[reference].reference().potential_gain
  std::vector<std::size_t> thread_models;  ///< indices into Report::models.thread_models
  std::optional<std::size_t> input_model;  ///< index into Report::models.input_models

  const SeriesAnalysis& reference_series() const { return series[reference]; }
  /// The thread model at `input`, or nullptr.
  const ThreadModel* thread_model(const ModelSet& models, const std::string& input) const;
};

/// A run whose teams had another size than the thread count it asked for.
struct TeamMismatch {
  std::string run_id;
  int requested = 0;
  int observed = 0;
};

struct Report {
  std::string directory;
  std::string version;  ///< ompscale's version and git hash
  std::size_t usable_runs = 0;
  std::vector<RunFile> failed;           ///< excluded from the analysis
  std::vector<RunFile> without_profile;  ///< excluded from the analysis
  /// Analysed runs recorded as failed (another exit status than expected, a signal) whose
  /// profile is complete; their profiles are not kept here.
  std::vector<RunFile> exited_unexpectedly;
  RuntimeReport runtime;  ///< the runtime measured; the native runs' comparison
  /// Runs whose teams differ from the requested count: analysed at the count the tool saw.
  std::vector<TeamMismatch> team_mismatches;
  /// The time-shared runs, one line each ("t2-r0 time-shared: 0.27 of 2 CPUs free ..."), at most
  /// a few, then a count.
  std::vector<std::string> time_shared_runs;
  Measurements measurements;
  std::string reference_input;
  std::vector<double> input_sizes;  ///< per input, or empty when unknown
  std::vector<double> predict_at;
  std::vector<SeriesAnalysis> program;  ///< the whole program, one per input
  std::vector<RunPop> pop;              ///< one per usable run, in run file order
  std::vector<RegionReport> regions;    ///< largest potential gain first
  ModelSet models;
  ReportOptions options;
  std::vector<std::string> notes;

  /// The program's series at the reference input.
  const SeriesAnalysis& program_reference() const;
};

/// Analyses the usable runs of `runs`. Throws UsageError when there are none ("DIR: no usable
/// runs (2 failed, 1 without profile)") and for options that do not fit the data.
Report build_report(const RunSet& runs, const ReportOptions& options = {});

}  // namespace ompscale::regions::report

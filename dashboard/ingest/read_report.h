#pragma once
// An ompscan report (`ompscan report --format json`, format "ompscan-report-1",
// docs/ompscan-report.md) as one entry of an application's history: the whole program and every
// region with time, speedup, efficiency and the loss split per input and thread count, the thread
// model at the reference input, and the hints.

#include <string>
#include <string_view>

#include "dashboard/store/records.h"

namespace ompscale::dashboard {

struct ReportReadOptions {
  /// The application's name in the history; default: the executable most parallel regions
  /// belong to (their location's module), else the name of the report's run directory.
  std::string application;
  /// ISO 8601 UTC date of the report; default: the latest start among the run files of the
  /// report's directory when it is still there, else the report file's modification time.
  std::string date;
};

/// Whether a parsed JSON document's "format" says it is an ompscan report.
bool is_report_format(std::string_view format);

/// The report in `text` (named `file`). InputError naming the place for a field of the wrong
/// type or a missing required field (format, thread_counts, regions with key and series).
AppReport parse_report(std::string_view text, const std::string& file,
                       const ReportReadOptions& options);

AppReport read_report(const std::string& path, const ReportReadOptions& options);

}  // namespace ompscale::dashboard

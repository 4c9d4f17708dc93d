#pragma once
// `ompdash ingest FILE...`: each file's kind is detected from its content (an ompbench results
// CSV, a models.json, an ompscan report JSON), every file is read completely before anything is
// written, and the batch goes into the history in one transaction (store/write.h). A bad file
// therefore leaves the history as it was.

#include <string>
#include <string_view>
#include <vector>

#include "dashboard/ingest/read_report.h"
#include "dashboard/store/records.h"
#include "dashboard/store/sqlite.h"
#include "dashboard/store/write.h"

namespace ompscale::dashboard {

enum class InputKind { kResults, kModels, kReport };

/// The kind of `text` (named `file`): JSON with "format": "ompscan-report-1" is a report, JSON
/// with "kernels" a models file, CSV with a results header a results file. InputError for
/// anything else, saying what it looks like when it is a file of ours that is not ingested
/// directly (a sidecar, an ompscan run file).
InputKind detect_kind(std::string_view text, const std::string& file);

struct IngestOptions {
  std::string label;          ///< stored with every run, models file and report of the batch
  ReportReadOptions reports;  ///< application name and date of reports
};

/// Reads every file (nothing is written); InputError for the first one that cannot be used.
IngestBatch read_inputs(const std::vector<std::string>& files, const IngestOptions& options);

/// Reads `files` and writes them into `db` (already migrated) in one transaction.
std::vector<IngestedItem> ingest_files(Database& db, const std::vector<std::string>& files,
                                       const IngestOptions& options);

}  // namespace ompscale::dashboard

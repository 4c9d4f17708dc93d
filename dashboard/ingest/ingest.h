#pragma once
// `ompdash ingest FILE...`: each file's kind is detected from its content (an ompbench results
// CSV, a models.json, an ompscan report JSON), every file is read completely before anything is
// written, and the batch goes into the history in one transaction (store/write.h). A bad file
// therefore leaves the history as it was.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dashboard/analysis/regressions.h"
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

/// Writes `batch` into `db` (already migrated) and derives the history's analysis anew
/// (analysis/derivation.h), in one transaction: with `analysis` when given (it becomes the
/// history's), else with the options of the derivation stored (the defaults for none). The
/// derivation reuses what the previous one computed, so a night adds only its own tests.
std::vector<IngestedItem> ingest_batch(Database& db, const IngestBatch& batch,
                                       const std::string& label, const std::string& now,
                                       const std::optional<RegressionOptions>& analysis = {});

/// Reads `files` and ingests them (ingest_batch).
std::vector<IngestedItem> ingest_files(Database& db, const std::vector<std::string>& files,
                                       const IngestOptions& options);

}  // namespace ompscale::dashboard

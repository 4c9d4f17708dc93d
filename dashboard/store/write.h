#pragma once
// Writing what `ompdash ingest` read into the history, all or nothing: one write transaction for
// the whole batch. An input already in the history (a run with the same run id and host and the
// same content, a models file or report with the same content) is skipped, so ingesting twice
// changes nothing; a run id and host that arrive with other content are refused.

#include <functional>
#include <string>
#include <vector>

#include "dashboard/store/records.h"
#include "dashboard/store/sqlite.h"

namespace ompscale::dashboard {

struct IngestedItem {
  std::string kind;    ///< "run", "models", "report"
  std::string source;  ///< the file it came from
  std::string name;    ///< run id, number of models, application
  bool added = false;  ///< false: it was in the history already
};

/// Writes `batch` (labelled `label`, ingested at `now`) in one transaction, then calls
/// `before_commit` (when given) inside it: what is derived from the history lands with what it
/// was derived from, or neither does. Throws InputError naming the file for a run id that is in
/// the history with other content and for models whose runs are neither in the history nor in
/// the batch; the database is then unchanged.
std::vector<IngestedItem> write_batch(
    Database& db, const IngestBatch& batch, const std::string& label, const std::string& now,
    const std::function<void(Database&, const std::vector<IngestedItem>&)>& before_commit = {});

}  // namespace ompscale::dashboard

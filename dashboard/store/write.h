#pragma once
// Writing what `ompdash ingest` read into the history, all or nothing: one write transaction for
// the whole batch. An input already in the history (a run with the same run id and host and the
// same content, a models file or report with the same content) is skipped, so ingesting twice
// changes nothing. A run id and host that arrive again from the same file with other content are
// refused; from another file they are another run (an older ompbench named runs by their start
// second, so runs started together share an id), kept as "ID~2", "ID~3", ...

#include <functional>
#include <string>
#include <vector>

#include "dashboard/store/records.h"
#include "dashboard/store/sqlite.h"

namespace ompscale::dashboard {

struct IngestedItem {
  std::string kind;    ///< "run", "models", "report"
  std::string source;  ///< the file it came from
  std::string name;    ///< run id (in the history), number of models, application
  bool added = false;  ///< false: it was in the history already
  std::string note;    ///< what a person should know about how it was read ("" mostly)
};

/// Writes `batch` (labelled `label`, ingested at `now`) in one transaction, then calls
/// `before_commit` (when given) inside it: what is derived from the history lands with what it
/// was derived from, or neither does. Throws InputError naming the file for a run id that is in
/// the history from the same file with other content and for models whose runs are neither in the
/// history nor in the batch; the database is then unchanged.
std::vector<IngestedItem> write_batch(
    Database& db, const IngestBatch& batch, const std::string& label, const std::string& now,
    const std::function<void(Database&, const std::vector<IngestedItem>&)>& before_commit = {});

}  // namespace ompscale::dashboard

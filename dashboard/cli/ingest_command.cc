#include <fmt/format.h>

#include <iostream>

#include "common/utc_time.h"
#include "dashboard/cli/commands.h"
#include "dashboard/store/history.h"

namespace ompscale::dashboard {

int run_ingest(const IngestArguments& a) {
  // Every file is read before the history is opened: a bad input leaves no trace, not even a
  // new empty database.
  const IngestBatch batch = read_inputs(a.files, a.options);
  Database db = open_history(a.db);
  const std::vector<IngestedItem> items = ingest_batch(db, batch, a.options.label, utc_timestamp());
  int added = 0;
  for (const IngestedItem& item : items) {
    std::cout << fmt::format("{} {} {} ({})\n", item.added ? "added" : "already in history",
                             item.kind, item.name, item.source);
    if (item.added && !item.note.empty()) std::cout << "  " << item.note << "\n";
    added += item.added ? 1 : 0;
  }
  std::cout << fmt::format("{}: {} added, {} already present\n", a.db, added,
                           items.size() - static_cast<std::size_t>(added));
  return 0;
}

}  // namespace ompscale::dashboard

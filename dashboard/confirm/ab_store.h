#pragma once
// A/B comparisons in the history (tables ab_tests and ab_results, docs/ompdash.md, "History
// database"): written when they ran, read back as the confirmation of the findings they checked
// and for `ompdash list --what ab`.

#include <cstdint>
#include <string>
#include <vector>

#include "dashboard/analysis/findings.h"
#include "dashboard/confirm/ab_test.h"
#include "dashboard/store/sqlite.h"

namespace ompscale::dashboard {

/// Writes `run` (labelled `label`, measured on `host`, stored at `now`) in one transaction;
/// returns its id.
std::int64_t write_ab(Database& db, const AbRun& run, const std::string& label,
                      const std::string& host, const std::string& now);

/// One kernel and thread count of a stored A/B.
struct StoredConfirmation {
  std::int64_t series = 0;
  int threads = 0;
  std::string run_id;  ///< the history run whose finding it checked ("" for none)
  std::string label;   ///< the A/B's label
  double old_median = 0, new_median = 0;  ///< geometric means of the pairs' medians (NaN: none)
  Confirmation confirmation;
};

/// Every stored A/B result, oldest first.
std::vector<StoredConfirmation> load_confirmations(Database& db);

/// Attaches to each finding the latest A/B of its kernel, thread count and run.
void attach_confirmations(std::vector<Finding>& findings,
                          const std::vector<StoredConfirmation>& confirmations);

}  // namespace ompscale::dashboard

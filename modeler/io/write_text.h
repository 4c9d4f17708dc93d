#pragma once
// The text report: what a person reads first (docs/output-formats.md, "Text report").
//
//   Models over t from results.csv (ompscale 0.1.0 (git 1a2b3c4d5e6f))
//
//      kernel             class  model                         adj.R2  SMAPE%  xval%  noise% growth
//      flags
//   !  construct=barrier  all    0.5 + 0.25 * t^(3/2)          0.9990    1.20  2.31  ...
//   worse-than-log
//      construct=single   all    0.8 + 0.1 * log2(t)^(1)       0.9950    0.80  1.10  ...
//
//   Marks: ! grows faster than logarithmic  ...
//
// followed, when present, by predictions, budget crossings, warnings and class decisions.
// Plain text without terminal colours, so it can be written to a file as is.

#include <ostream>
#include <string>
#include <vector>

#include "common/message_groups.h"
#include "modeler/core/kernel.h"
#include "modeler/core/result.h"
#include "modeler/io/write_common.h"

namespace ompscale::modeler {

struct TextReportOptions {
  /// Significant digits of the coefficients in the model column.
  int digits = 4;
  /// Write the provenance line (sources and ompscale version) at the top.
  bool header = true;
  /// What the modeler learnt from the input (LearnedExtrapolation::describe()); a section after
  /// the models when not empty.
  std::string learned = {};
  /// Columns of the terminal the report is for; 0: no limit (files, --wide). With a limit, key
  /// columns every kernel shares are said once, the flags column is left out (the marks and
  /// warnings say the same), tables put the key on its own line when they are still too wide,
  /// and text is wrapped; repeated warnings name their first three kernels.
  std::size_t width = 0;
};

/// Builds the report one kernel at a time, so a caller can fit and report as kernels complete
/// without keeping every result: add() each result in order, then finish().
class TextReport {
 public:
  TextReport(const Dataset& dataset, const TextReportOptions& options = {});
  void add(const KernelResult& result);
  /// The report so far, written to `out` piece by piece.
  void write(std::ostream& out) const;
  /// The report so far as one string.
  std::string finish() const;

 private:
  struct BudgetRow {
    std::string label;
    std::string thread_class;
    BudgetCrossing crossing;
    std::string unit;
  };
  void add_model_row(const std::string& label, const ClassModel& model);
  void write_budgets(std::ostream& out) const;

  const Dataset& dataset_;
  TextReportOptions options_;
  io_detail::KeyLabels labels_;
  io_detail::TextTable models_;
  io_detail::TextTable predictions_;
  std::vector<BudgetRow> budgets_;
  std::string used_marks_;
  bool past_boundary_ = false;  ///< a prediction row is marked '!'
  MessageGroups warnings_{"model", "models"};
  MessageGroups decisions_{"kernel", "kernels"};
};

/// One line per (kernel, class) model, in the order of `results`, then the detail sections.
/// Each result's `kernel` indexes `dataset.kernels`.
std::string format_text_report(const Dataset& dataset, const std::vector<KernelResult>& results,
                               const TextReportOptions& options = {});

}  // namespace ompscale::modeler

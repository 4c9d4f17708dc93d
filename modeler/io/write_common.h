#pragma once
// Pieces shared by the modeler's writers (internal to modeler/io): kernel keys as strings and
// what a person reads instead of a model. Number formatting and aligned columns live in
// common/text_table.h, XML escaping in common/svg.h.

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "common/svg.h"
#include "common/text.h"
#include "common/text_table.h"
#include "modeler/core/kernel.h"
#include "modeler/core/result.h"

namespace ompscale::modeler::io_detail {

// Moved to common/ (common/text_table.h, common/svg.h); the writers keep their short names.
using ompscale::format_exact;
using ompscale::format_fixed;
using ompscale::format_significant;
using ompscale::TextTable;
using ompscale::svg::xml_escape;

/// The key as a person reads it (Dataset::describe), or "(all)" when every key value is empty.
std::string kernel_label(const Dataset& dataset, const Kernel& kernel);

/// Key columns whose value all of `kernels` (indexes into dataset.kernels) share; all false for
/// fewer than two kernels.
std::vector<bool> shared_columns(const Dataset& dataset, const std::vector<std::size_t>& kernels);

/// "construct=barrier bind=spread": the non-empty key values of the columns `skip` does not mark.
std::string key_text(const Dataset& dataset, const Kernel& kernel, const std::vector<bool>& skip);

/// Kernel labels for a terminal: the key columns every kernel shares are said once (shared()), the
/// labels hold the others. Without shortening, labels are whole keys (kernel_label).
class KeyLabels {
 public:
  KeyLabels(const Dataset& dataset, const std::vector<std::size_t>& kernels, bool shorten);
  /// The label of `kernel`; "(all)" when nothing is left.
  std::string label(const Kernel& kernel) const;
  /// "method=direct unit=us": the shared key values; empty when nothing is shared or shortened.
  std::string shared(const Kernel& any) const;

 private:
  const Dataset& dataset_;
  std::vector<bool> skip_;
};

/// Indexes 0..n-1 of every kernel in `dataset`.
std::vector<std::size_t> all_kernels(const Dataset& dataset);

/// The key values of `kernel`, one per Dataset::key_columns, as owned strings.
std::vector<std::string> key_values(const Dataset& dataset, const Kernel& kernel);

/// The kernel a result belongs to; throws std::out_of_range when the index is not in `dataset`
/// (results and dataset do not belong together, a programming error).
const Kernel& kernel_of(const Dataset& dataset, const KernelResult& result);

/// Index of `column` in Dataset::key_columns, or key_columns.size() when absent.
std::size_t key_column_index(const Dataset& dataset, std::string_view column);

/// "0.585 at 1, 1.77 at 2 (x3.03)": the points of a class without a model and the ratio of the
/// last to the first.
std::string measured_text(const ClassModel& model);

/// What a person reads instead of a model: "no model; measured " and measured_text() when there
/// are at most `max_points` points, else "no model".
std::string no_model_text(const ClassModel& model, std::size_t max_points = 2);

}  // namespace ompscale::modeler::io_detail

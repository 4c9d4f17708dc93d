#pragma once
// Pieces shared by the writers (internal to modeler/io): number formatting for people, column
// alignment that counts UTF-8 characters rather than bytes, and kernel keys as strings.

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "common/text.h"
#include "modeler/kernel.h"
#include "modeler/result.h"

namespace ompscale::modeler::io_detail {

/// `value` with `significant` digits ("{:.Ng}"); "n/a" for NaN, "inf"/"-inf" for infinities.
std::string format_significant(double value, int significant);
/// `value` with `decimals` digits after the point; "n/a" for NaN.
std::string format_fixed(double value, int decimals);
/// The shortest text that reads back as exactly `value` ("2", "0.1", "1e+300").
std::string format_exact(double value);

/// Rows of cells printed as aligned columns, two spaces apart, without trailing blanks.
class TextTable {
 public:
  enum class Align { kLeft, kRight };

  /// One alignment per column; a row may have fewer cells than columns.
  explicit TextTable(std::vector<Align> alignment) : alignment_(std::move(alignment)) {}

  void add_row(const std::vector<std::string>& cells);
  /// Room for `rows` rows of about `bytes_per_row` characters: a large table then grows once,
  /// not by doubling (which briefly holds the old and the new buffer).
  void reserve(std::size_t rows, std::size_t bytes_per_row);
  bool empty() const { return row_end_.empty(); }
  std::size_t rows() const { return row_end_.size(); }

  /// Every row followed by "\n", each prefixed by `indent`.
  std::string render(std::string_view indent = "") const;
  /// The same, written to `out` line by line (a large report never exists as one string).
  void render_to(std::ostream& out, std::string_view indent = "") const;
  /// The same for a terminal `width` columns wide (0: no limit). When the rows are wider, the cells
  /// of column `heading` go on a line of their own whenever they change (wrapped at the width),
  /// and the other columns are aligned under them, indented by two more spaces. The first row is
  /// the header.
  void render_to(std::ostream& out, std::string_view indent, std::size_t width,
                 std::size_t heading) const;
  /// Characters of the widest row, indent not counted.
  std::size_t width() const;

 private:
  /// Writes the row that starts at cell `cell` (text from `begin`), without column `skip`.
  void render_row(std::string& line, std::size_t& cell, std::size_t& begin, std::uint32_t row_end,
                  std::size_t skip) const;

  // Cells are kept back to back in one buffer (a report of thousands of rows would otherwise
  // cost a string object per cell); column widths grow as rows are added.
  std::vector<Align> alignment_;
  std::vector<std::size_t> widths_ = std::vector<std::size_t>(alignment_.size(), 0);
  std::string text_;
  std::vector<std::uint32_t> cell_end_;  ///< end offset of each cell in text_
  std::vector<std::uint32_t> row_end_;   ///< end index of each row in cell_end_
};

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

/// `text` safe inside XML/SVG text and attributes (&, <, >, quotes; control characters -> ' ').
std::string xml_escape(std::string_view text);

}  // namespace ompscale::modeler::io_detail

#pragma once
// Pieces shared by the writers (internal to modeler/io): number formatting for people, column
// alignment that counts UTF-8 characters rather than bytes, and kernel keys as strings.

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "modeler/kernel.h"
#include "modeler/result.h"

namespace ompscale::modeler::io_detail {

/// `value` with `significant` digits ("{:.Ng}"); "n/a" for NaN, "inf"/"-inf" for infinities.
std::string format_significant(double value, int significant);
/// `value` with `decimals` digits after the point; "n/a" for NaN.
std::string format_fixed(double value, int decimals);
/// The shortest text that reads back as exactly `value` ("2", "0.1", "1e+300").
std::string format_exact(double value);

/// Characters a terminal shows for UTF-8 `text` (code points; no wide-character handling).
std::size_t display_width(std::string_view text);

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

 private:
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

/// The key values of `kernel`, one per Dataset::key_columns, as owned strings.
std::vector<std::string> key_values(const Dataset& dataset, const Kernel& kernel);

/// The kernel a result belongs to; throws std::out_of_range when the index is not in `dataset`
/// (results and dataset do not belong together, a programming error).
const Kernel& kernel_of(const Dataset& dataset, const KernelResult& result);

/// Index of `column` in Dataset::key_columns, or key_columns.size() when absent.
std::size_t key_column_index(const Dataset& dataset, std::string_view column);

/// `text` safe inside XML/SVG text and attributes (&, <, >, quotes; control characters -> ' ').
std::string xml_escape(std::string_view text);

}  // namespace ompscale::modeler::io_detail

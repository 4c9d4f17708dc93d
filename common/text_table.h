#pragma once
// Text for people: numbers formatted for reading, and rows of cells as aligned columns that count
// UTF-8 characters rather than bytes. Used by the text reports of the modeler, ompscan report and
// ompdash.

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace ompscale {

/// `value` with `significant` digits ("{:.Ng}"); "n/a" for NaN, "inf"/"-inf" for infinities.
std::string format_significant(double value, int significant);
/// `value` with `decimals` digits after the point; "n/a" for NaN.
std::string format_fixed(double value, int decimals);
/// The shortest text that reads back as exactly `value` ("2", "0.1", "1e+300").
std::string format_exact(double value);
/// A duration in seconds in the unit that reads best, 3 significant digits: "1.91 s", "430 ms",
/// "12.5 us", "3 ns".
std::string format_seconds(double seconds);

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

}  // namespace ompscale

#pragma once
// RFC 4180 CSV, the format of ompbench results and of any table a user brings to the modeler.
//
// Reading accepts what RFC 4180 allows plus what real files contain: LF as well as CRLF line ends,
// a UTF-8 byte order mark (skipped), blank lines between records (skipped) and a last record
// without a line end. Everything else that is ambiguous is an InputError naming the file and line:
// an unterminated quoted field, a quote inside an unquoted field, text after a closing quote, a
// carriage return that is not part of CRLF outside quotes.
//
// Writing quotes a field only when it has to (a comma, quote, CR or LF in it), so the common case
// stays readable by people and by naive tools.

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace ompscale {

/// Reads records one at a time from CSV text held in memory. Fields are views: into the text
/// itself, or (for a quoted field with doubled quotes) into the reader's storage, so a loop over a
/// large file neither copies nor allocates per row.
///
///   CsvReader reader(text, "results.csv");
///   std::vector<std::string_view> fields;
///   while (reader.next(fields)) use(reader.line(), fields);
class CsvReader {
 public:
  /// `text` must outlive the reader; `file` names the input in error messages; `first_line` is
  /// the line number of the text's first line (a block of a larger file starts later).
  CsvReader(std::string_view text, std::string file, std::size_t first_line = 1);

  /// Replaces `fields` with the next record's fields; they stay valid until the next call. Returns
  /// false (and leaves `fields` empty) at the end of the input. Throws InputError(file, line,
  /// cause) on malformed quoting.
  bool next(std::vector<std::string_view>& fields);

  /// 1-based line on which the record last returned by next() starts. A record with a quoted
  /// line break spans several lines; the following record's number accounts for them.
  std::size_t line() const { return record_line_; }

  /// Line on which the unread text starts: after the last record, the line after the text (the
  /// `first_line` of a block that follows).
  std::size_t next_line() const { return line_; }

  const std::string& file() const { return file_; }

 private:
  struct Unescaped {  // a field whose value lives in unescaped_
    std::size_t field;
    std::size_t offset;
    std::size_t length;
  };

  bool split_simple_line(std::vector<std::string_view>& fields);
  // Reads one field starting at pos_ and appends it; returns true when the record continues.
  bool read_field(std::vector<std::string_view>& fields);
  bool read_quoted_field(std::vector<std::string_view>& fields);
  [[noreturn]] void fail(std::size_t line, const std::string& cause) const;

  std::string_view text_;
  std::string file_;
  std::size_t pos_ = 0;
  std::size_t line_ = 1;         // line of text_[pos_]
  std::size_t record_line_ = 0;  // line where the last record started
  std::string unescaped_;        // the current record's fields that had doubled quotes
  std::vector<Unescaped> unescaped_fields_;
};

/// A record with the line it starts on, as returned by read_csv().
struct CsvRecord {
  std::size_t line = 0;
  std::vector<std::string> fields;
};

/// All records of `text` (header included). For small inputs and tests; large inputs should loop
/// over CsvReader::next() instead.
std::vector<CsvRecord> read_csv(std::string_view text, const std::string& file);

/// `value` as one CSV field: unchanged unless it holds a comma, double quote, CR or LF, in which
/// case it is enclosed in double quotes with inner quotes doubled.
std::string csv_field(std::string_view value);

/// The fields joined by commas, each through csv_field(), terminated by "\n".
std::string csv_line(const std::vector<std::string>& fields);
std::string csv_line(std::initializer_list<std::string_view> fields);

}  // namespace ompscale

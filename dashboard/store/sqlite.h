#pragma once
// A thin RAII layer over SQLite's C API: a connection, prepared statements with typed binding and
// columns, and write transactions. Every failure is a std::runtime_error naming the database and
// SQLite's message; nothing here knows the history's tables (schema.h, history.h do).

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace ompscale::dashboard {

/// A failed SQLite call: what() is "DATABASE: SQLITE MESSAGE (while WHAT)".
class SqliteError : public std::runtime_error {
 public:
  SqliteError(const std::string& message, int code) : std::runtime_error(message), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

/// SQL NULL, for Statement::bind.
struct Null {};

class Statement;

/// Columns `first`, `first` + 1, ... of the current row of `s` into the `fields` of `record`, in
/// order, each read as its member's type (std::string: text, double: real, integers: integer,
/// bool: integer != 0); the members listed next to the SELECT they come from.
template <class Record, class... Types>
void read_columns(const Statement& s, int first, Record& record, Types Record::*... fields);

/// Every (remaining) row of `s` as a Record, its columns from 0 on read by read_columns.
template <class Record, class... Types>
std::vector<Record> read_rows(Statement& s, Types Record::*... fields);

/// One prepared statement. Parameters are 1-based, columns 0-based, as in SQLite.
class Statement {
 public:
  Statement(sqlite3* db, std::string_view sql, std::string database_name);
  ~Statement();
  Statement(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement& operator=(Statement&&) = delete;

  Statement& bind(int index, std::string_view text);
  Statement& bind(int index, const char* text) { return bind(index, std::string_view(text)); }
  Statement& bind(int index, const std::string& text) {
    return bind(index, std::string_view(text));
  }
  Statement& bind(int index, double value);
  Statement& bind(int index, std::int64_t value);
  Statement& bind(int index, int value) { return bind(index, static_cast<std::int64_t>(value)); }
  Statement& bind(int index, bool value) { return bind(index, static_cast<std::int64_t>(value)); }
  Statement& bind(int index, Null);
  /// NaN and empty optionals are stored as NULL.
  Statement& bind(int index, std::optional<double> value);
  /// An empty span is an empty blob, not NULL.
  Statement& bind_blob(int index, std::span<const std::byte> bytes);

  /// Binds every argument in order, starting at parameter 1.
  template <typename... Args>
  Statement& bind_all(const Args&... args) {
    int index = 0;
    (bind(++index, args), ...);
    return *this;
  }

  /// Executes one step: true when a row is available, false when done.
  bool step();
  /// Steps until done (for statements without results).
  void run();
  /// Ready for another execution with new bindings.
  void reset();

  /// Columns of the result rows.
  int columns() const;
  bool is_null(int column) const;
  std::string text(int column) const;
  double real(int column) const;  // NULL reads as NaN
  std::int64_t integer(int column) const;
  std::vector<std::byte> blob(int column) const;

 private:
  [[noreturn]] void fail(int code, std::string_view what) const;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
  std::string database_name_;
};

struct OpenOptions {
  /// How long a writer waits for another process's write transaction before giving up. Ingests
  /// of a nightly's many files may run at once; each holds the lock for well under a second.
  int busy_timeout_ms = 60000;
  /// Open an existing database only, without creating or changing it.
  bool read_only = false;
};

/// One connection. WAL journal (readers never block the writer), foreign keys on.
namespace sqlite_detail {
void read_column(const Statement& s, int column, std::string& value);
void read_column(const Statement& s, int column, double& value);
void read_column(const Statement& s, int column, std::int64_t& value);
void read_column(const Statement& s, int column, int& value);
void read_column(const Statement& s, int column, bool& value);
}  // namespace sqlite_detail

template <class Record, class... Types>
void read_columns(const Statement& s, int first, Record& record, Types Record::*... fields) {
  int column = first;
  (sqlite_detail::read_column(s, column++, record.*fields), ...);
}

template <class Record, class... Types>
std::vector<Record> read_rows(Statement& s, Types Record::*... fields) {
  std::vector<Record> out;
  while (s.step()) {
    Record record;
    read_columns(s, 0, record, fields...);
    out.push_back(std::move(record));
  }
  return out;
}

class Database {
 public:
  /// Opens (creating unless read_only) the database at `path`.
  static Database open(const std::string& path, const OpenOptions& options = {});
  ~Database();
  Database(Database&& other) noexcept;
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  Database& operator=(Database&&) = delete;

  /// Runs one or more statements without results.
  void exec(std::string_view sql);
  Statement prepare(std::string_view sql);
  std::int64_t last_insert_rowid() const;
  /// Rows changed by the last INSERT, UPDATE or DELETE.
  int changes() const;
  const std::string& path() const { return path_; }

 private:
  Database(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  sqlite3* db_ = nullptr;
  std::string path_;
};

/// A write transaction (BEGIN IMMEDIATE: the write lock is taken at the start, so two writers
/// never both read and then both fail to upgrade). Rolled back unless commit() is called.
class Transaction {
 public:
  explicit Transaction(Database& db);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  Database& db_;
  bool done_ = false;
};

/// Doubles as little-endian bytes and back: how repetitions are stored in a BLOB column.
std::vector<std::byte> to_blob(std::span<const double> values);
std::vector<double> from_blob(std::span<const std::byte> bytes);

}  // namespace ompscale::dashboard

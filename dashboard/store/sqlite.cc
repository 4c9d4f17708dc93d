#include "dashboard/store/sqlite.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <bit>
#include <cmath>
#include <cstring>

namespace ompscale::dashboard {

namespace {

std::string message(sqlite3* db, const std::string& name, std::string_view what) {
  return fmt::format("{}: {} (while {})", name, db ? sqlite3_errmsg(db) : "out of memory", what);
}

}  // namespace

Statement::Statement(sqlite3* db, std::string_view sql, std::string database_name)
    : db_(db), database_name_(std::move(database_name)) {
  const int rc = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr);
  if (rc != SQLITE_OK) fail(rc, fmt::format("preparing \"{}\"", sql.substr(0, 60)));
}

Statement::~Statement() {
  sqlite3_finalize(stmt_);
}

Statement::Statement(Statement&& other) noexcept
    : db_(other.db_), stmt_(other.stmt_), database_name_(std::move(other.database_name_)) {
  other.stmt_ = nullptr;
}

void Statement::fail(int code, std::string_view what) const {
  throw SqliteError(message(db_, database_name_, what), code);
}

Statement& Statement::bind(int index, std::string_view text) {
  const int rc =
      sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) fail(rc, "binding text");
  return *this;
}

Statement& Statement::bind(int index, double value) {
  if (std::isnan(value)) return bind(index, Null{});
  const int rc = sqlite3_bind_double(stmt_, index, value);
  if (rc != SQLITE_OK) fail(rc, "binding a number");
  return *this;
}

Statement& Statement::bind(int index, std::int64_t value) {
  const int rc = sqlite3_bind_int64(stmt_, index, value);
  if (rc != SQLITE_OK) fail(rc, "binding an integer");
  return *this;
}

Statement& Statement::bind(int index, Null) {
  const int rc = sqlite3_bind_null(stmt_, index);
  if (rc != SQLITE_OK) fail(rc, "binding NULL");
  return *this;
}

Statement& Statement::bind(int index, std::optional<double> value) {
  return value ? bind(index, *value) : bind(index, Null{});
}

Statement& Statement::bind_blob(int index, std::span<const std::byte> bytes) {
  // No bytes is an empty blob, not NULL (which sqlite3_bind_blob64 makes of a null pointer).
  const int rc = bytes.empty() ? sqlite3_bind_zeroblob(stmt_, index, 0)
                               : sqlite3_bind_blob64(stmt_, index, bytes.data(), bytes.size(),
                                                     SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) fail(rc, "binding a blob");
  return *this;
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  fail(rc, fmt::format("running \"{}\"", std::string_view(sqlite3_sql(stmt_)).substr(0, 60)));
}

void Statement::run() {
  while (step()) {
  }
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

int Statement::columns() const {
  return sqlite3_column_count(stmt_);
}

bool Statement::is_null(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

std::string Statement::text(int column) const {
  const unsigned char* p = sqlite3_column_text(stmt_, column);
  if (p == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(p),
                     static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)));
}

double Statement::real(int column) const {
  if (is_null(column)) return std::nan("");
  return sqlite3_column_double(stmt_, column);
}

std::int64_t Statement::integer(int column) const {
  return sqlite3_column_int64(stmt_, column);
}

std::vector<std::byte> Statement::blob(int column) const {
  const void* p = sqlite3_column_blob(stmt_, column);
  const auto n = static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column));
  std::vector<std::byte> out(n);
  if (n > 0) std::memcpy(out.data(), p, n);
  return out;
}

namespace sqlite_detail {

void read_column(const Statement& s, int column, std::string& value) {
  value = s.text(column);
}
void read_column(const Statement& s, int column, double& value) {
  value = s.real(column);
}
void read_column(const Statement& s, int column, std::int64_t& value) {
  value = s.integer(column);
}
void read_column(const Statement& s, int column, int& value) {
  value = static_cast<int>(s.integer(column));
}
void read_column(const Statement& s, int column, bool& value) {
  value = s.integer(column) != 0;
}

}  // namespace sqlite_detail

Database Database::open(const std::string& path, const OpenOptions& options) {
  sqlite3* db = nullptr;
  const int flags =
      options.read_only ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  const int rc = sqlite3_open_v2(path.c_str(), &db, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    const std::string text = message(db, path, "opening");
    sqlite3_close(db);
    throw SqliteError(text, rc);
  }
  Database database(db, path);
  sqlite3_busy_timeout(db, options.busy_timeout_ms);
  database.exec("PRAGMA foreign_keys = ON");
  if (!options.read_only) {
    // WAL: concurrent readers (render) never block an ingest, and a commit is one append.
    database.exec("PRAGMA journal_mode = WAL");
    database.exec("PRAGMA synchronous = NORMAL");
  }
  return database;
}

Database::~Database() {
  sqlite3_close(db_);
}

Database::Database(Database&& other) noexcept : db_(other.db_), path_(std::move(other.path_)) {
  other.db_ = nullptr;
}

void Database::exec(std::string_view sql) {
  char* error = nullptr;
  const std::string text(sql);
  const int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &error);
  if (rc != SQLITE_OK) {
    const std::string cause = error ? error : sqlite3_errstr(rc);
    sqlite3_free(error);
    throw SqliteError(fmt::format("{}: {} (while running \"{}\")", path_, cause,
                                  std::string_view(text).substr(0, 60)),
                      rc);
  }
}

Statement Database::prepare(std::string_view sql) {
  return Statement(db_, sql, path_);
}

std::int64_t Database::last_insert_rowid() const {
  return sqlite3_last_insert_rowid(db_);
}

int Database::changes() const {
  return sqlite3_changes(db_);
}

Transaction::Transaction(Database& db) : db_(db) {
  db_.exec("BEGIN IMMEDIATE");
}

Transaction::~Transaction() {
  if (done_) return;
  try {
    db_.exec("ROLLBACK");
  } catch (const SqliteError&) {
    // The connection rolled back already (e.g. after SQLITE_FULL); nothing is left to undo.
  }
}

void Transaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

std::vector<std::byte> to_blob(std::span<const double> values) {
  static_assert(std::endian::native == std::endian::little, "blobs are little-endian doubles");
  std::vector<std::byte> out(values.size() * sizeof(double));
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

std::vector<double> from_blob(std::span<const std::byte> bytes) {
  std::vector<double> out(bytes.size() / sizeof(double));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(double));
  return out;
}

}  // namespace ompscale::dashboard

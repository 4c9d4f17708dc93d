#pragma once
// The history database's schema and how it moves between versions. The version is SQLite's
// `PRAGMA user_version`; migration i takes a database from version i - 1 to version i, inside the
// same write transaction that checks the version, so two processes opening a fresh database at
// once create it once. A database newer than this ompdash knows is refused, never altered.
// docs/ompdash.md ("History database") lists the tables.

#include <span>
#include <string_view>

#include "dashboard/store/sqlite.h"

namespace ompscale::dashboard {

struct Migration {
  int version;               ///< the version the database has after this step
  std::string_view summary;  ///< what it changes, for people
  std::string_view sql;
};

/// Every migration of the history schema, in order; the last one's version is the current one.
std::span<const Migration> history_migrations();

/// Brings `db` to the last version of `migrations` (applied in order from the database's
/// version). Throws std::runtime_error naming the file when the database is newer than the last
/// migration or is not a history database (tables present but version 0).
void migrate(Database& db, std::span<const Migration> migrations);

/// The database's schema version (0 for a new, empty database).
int schema_version(Database& db);

}  // namespace ompscale::dashboard

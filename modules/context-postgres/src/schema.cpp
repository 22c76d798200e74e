#include "schema.hpp"

#include <array>
#include <string>

namespace context_postgres {

namespace {

// Any fixed number, the same in every process: the advisory lock taken around migrations.
constexpr std::string_view kMigrationLockKey = "7361726d70736368";  // "sarmpsch" in hex

// The message is kept as `text`, the exact JSON it arrived as, rather than `jsonb`: jsonb
// refuses the escape \u0000 (a tool's binary output can hold it) and reorders keys, and a
// context gives back what it was given. The metadata is jsonb: a summary worth querying.
constexpr std::array<std::string_view, kSchemaVersion> kMigrations = {
    R"sql(
CREATE TABLE amplifier_sessions (
  id text PRIMARY KEY,
  parent_id text,
  created timestamptz NOT NULL DEFAULT now(),
  updated timestamptz NOT NULL DEFAULT now(),
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX amplifier_sessions_by_updated ON amplifier_sessions (updated DESC);
CREATE INDEX amplifier_sessions_by_parent ON amplifier_sessions (parent_id)
  WHERE parent_id IS NOT NULL;
CREATE TABLE amplifier_messages (
  session_id text NOT NULL REFERENCES amplifier_sessions (id) ON DELETE CASCADE,
  seq bigint NOT NULL CHECK (seq >= 0),
  role text NOT NULL,
  message text NOT NULL,
  origin jsonb,
  created timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (session_id, seq)
);
CREATE TABLE amplifier_session_leases (
  session_id text PRIMARY KEY,
  holder text NOT NULL,
  acquired timestamptz NOT NULL DEFAULT now(),
  expires timestamptz NOT NULL
);
)sql"};

int current_version(PgConnection &connection) {
  PgResult result =
      connection.exec("reading the schema version",
                      "SELECT coalesce(max(version), 0) FROM amplifier_schema_version");
  return std::stoi(std::string(result.text(0, 0)));
}

}  // namespace

void migrate_schema(PgConnection &connection) {
  Transaction transaction(connection);
  connection.exec(
      "waiting for the schema migration lock",
      "SELECT pg_advisory_xact_lock(x'" + std::string(kMigrationLockKey) + "'::bigint)");
  connection.exec("creating amplifier_schema_version",
                  "CREATE TABLE IF NOT EXISTS amplifier_schema_version ("
                  "version integer PRIMARY KEY, applied timestamptz NOT NULL DEFAULT now())");
  const int found = current_version(connection);
  if (found > kSchemaVersion)
    throw DatabaseError(DatabaseErrorKind::failed,
                        "the schema in PostgreSQL " + connection.target() + " is version " +
                            std::to_string(found) + ", newer than this context-postgres knows (" +
                            std::to_string(kSchemaVersion) + "); use a newer amplifier");
  for (int version = found + 1; version <= kSchemaVersion; ++version) {
    const std::string doing = "migrating the schema to version " + std::to_string(version);
    connection.exec_script(doing, std::string(kMigrations[static_cast<std::size_t>(version - 1)]));
    connection.exec(doing, "INSERT INTO amplifier_schema_version (version) VALUES ($1)",
                    {std::to_string(version)});
  }
  transaction.commit("committing the schema migration");
}

}  // namespace context_postgres

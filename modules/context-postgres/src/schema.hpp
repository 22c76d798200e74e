// The tables of context-postgres, created and migrated when the module starts.
//
//   amplifier_schema_version  (version, applied)              one row per migration applied
//   amplifier_sessions        (id, parent_id, created, updated, metadata jsonb)
//   amplifier_messages        (session_id, seq, role, message, origin jsonb, created)
//                             PRIMARY KEY (session_id, seq)
//   amplifier_session_leases  (session_id, holder, acquired, expires)
//
// Every migration a database lacks runs in ONE transaction with the version rows, under a
// transaction-level advisory lock: two processes starting at once take turns, and the second
// finds the work done. A database whose schema is newer than this module knows is refused
// (its tables may mean something this version would get wrong).
#pragma once
#include "pg_connection.hpp"

namespace context_postgres {

inline constexpr int kSchemaVersion = 1;

// Brings the database to kSchemaVersion. Throws DatabaseError.
void migrate_schema(PgConnection &connection);

}  // namespace context_postgres

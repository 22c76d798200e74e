// context-postgres's answers to amp_context_vtable.sessions_query: the sessions in the
// database, listed, read and imported without a session (`amplifier sessions --plan`, and
// `amplifier serve` continuing a session another host started).
#pragma once
#include <string>
#include <string_view>

namespace context_postgres {

// Answers `query_json` ({"op": "list" | "read" | "import", ...}, as amplifier_plugin.h
// describes) against the database `config_json` names. Throws amp::sdk::QueryError: not found
// (no such session), invalid argument (a bad query or config), error (the database failed,
// or an import of a session that exists).
std::string answer_sessions_query(std::string_view config_json, std::string_view query_json);

}  // namespace context_postgres

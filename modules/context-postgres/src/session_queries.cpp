#include "session_queries.hpp"

#include "postgres_config.hpp"
#include "shared_database.hpp"

#include "amplifier/context/message_json.hpp"
#include "amplifier/session_store.hpp"
#include "amplifier/transcript.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <map>
#include <memory>
#include <mutex>

namespace context_postgres {
namespace json = boost::json;
namespace store = amplifier::session_store;
namespace transcript = amplifier::transcript;
using amp::sdk::QueryError;

namespace {

// The value of a jsonb/text column as JSON, null for SQL NULL or text that is not JSON.
json::value json_column(const PgResult &rows, int row, int column) {
  if (rows.is_null(row, column)) return nullptr;
  json::error_code error;
  json::value value = json::parse(rows.text(row, column), error);
  return error ? json::value() : value;
}

std::string text_field(const json::object &object, std::string_view key) {
  const json::value *value = object.if_contains(key);
  return value && value->is_string() ? std::string(value->get_string()) : std::string();
}

const std::string &checked_session_id(const json::object &query, std::string &storage) {
  storage = text_field(query, "session_id");
  try {
    store::check_session_id(storage);
  } catch (const std::exception &e) {
    throw QueryError(AMP_INVALID_ARGUMENT, e.what());
  }
  return storage;
}

// The session's summary from its metadata row; one whose metadata cannot be read says why.
json::object summary_of(const std::string &id, const std::string &updated,
                        const json::value &saved) {
  store::SessionSummary summary;
  summary.id = id;
  summary.updated = updated;
  if (!saved.is_null()) {
    try {
      summary = store::summary_of(id, store::metadata_from_json(saved), updated);
    } catch (const std::exception &e) {
      summary.problem = std::string("its metadata cannot be read: ") + e.what();
    }
  }
  return store::to_json(summary);
}

// `limit` absent or null: all of them.
Param list_limit(const json::object &query) {
  const json::value *limit = query.if_contains("limit");
  if (!limit || limit->is_null()) return std::nullopt;
  if (!limit->is_int64() || limit->get_int64() < 0)
    throw QueryError(AMP_INVALID_ARGUMENT, "\"limit\" must be a whole number, 0 or more");
  return std::to_string(limit->get_int64());
}

json::array list_sessions(PgConnection &connection, const json::object &query) {
  PgResult rows = connection.exec(
      "listing the sessions",
      "SELECT id, to_char(updated AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'), "
      "metadata::text FROM amplifier_sessions ORDER BY updated DESC, id LIMIT $1::bigint",
      {list_limit(query)});
  json::array sessions;
  sessions.reserve(static_cast<std::size_t>(rows.rows()));
  for (int row = 0; row < rows.rows(); ++row)
    sessions.push_back(summary_of(std::string(rows.text(row, 0)), std::string(rows.text(row, 1)),
                                  json_column(rows, row, 2)));
  return sessions;
}

json::object read_session(PgConnection &connection, const std::string &id) {
  PgResult found = connection.exec(
      "reading session " + id, "SELECT metadata::text FROM amplifier_sessions WHERE id = $1", {id});
  if (found.rows() != 1) throw QueryError(AMP_NOT_FOUND, "no session '" + id + "' in the database");
  json::array messages, origins;
  connection.stream("reading the messages of session " + id,
                    "SELECT message, origin::text FROM amplifier_messages WHERE session_id = $1 "
                    "ORDER BY seq",
                    {id}, [&](const PgResult &row) {
                      messages.push_back(json_column(row, 0, 0));
                      origins.push_back(json_column(row, 0, 1));
                    });
  return {{"metadata", json_column(found, 0, 0)},
          {"messages", std::move(messages)},
          {"origins", std::move(origins)}};
}

// The metadata an imported session starts with: the one given (its id made this session's),
// else a summary of the messages.
store::SessionMetadata imported_metadata(const std::string &id, const json::value &given,
                                         const json::array &messages) {
  store::SessionMetadata metadata;
  if (given.is_object()) {
    try {
      metadata = store::metadata_from_json(given);
    } catch (const std::exception &e) {
      throw QueryError(AMP_INVALID_ARGUMENT, std::string("bad \"metadata\": ") + e.what());
    }
  } else {
    metadata.created = metadata.updated = store::utc_timestamp_now();
  }
  metadata.session_id = id;
  metadata.message_count = static_cast<std::int64_t>(messages.size());
  return metadata;
}

json::value origin_at(const json::object &query, std::size_t index) {
  const json::value *origins = query.if_contains("origins");
  if (!origins || !origins->is_array() || index >= origins->get_array().size()) return nullptr;
  const json::value &origin = origins->get_array()[index];
  return transcript::origin_from_json(origin) ? origin : json::value();
}

// Refuses while a host holds the session: deleting it under a live writer would lose what it
// writes next (its lease check would fail, but only after the user was told it is gone).
void check_not_leased(PgConnection &connection, const std::string &id, std::string_view doing) {
  PgResult leased = connection.exec(
      "checking the lease of session " + id,
      "SELECT holder FROM amplifier_session_leases WHERE session_id = $1 AND expires > now() "
      "FOR UPDATE",
      {id});
  if (leased.rows() > 0)
    throw QueryError(AMP_BUSY, "session busy: session '" + id + "' is open on " +
                                    std::string(leased.text(0, 0)) + "; it cannot be " +
                                    std::string(doing));
}

json::object import_session(PgConnection &connection, const std::string &id,
                            const json::object &query) {
  const json::value *messages = query.if_contains("messages");
  if (!messages || !messages->is_array())
    throw QueryError(AMP_INVALID_ARGUMENT, "an import needs a \"messages\" array");
  const json::array &list = messages->get_array();
  const store::SessionMetadata metadata = imported_metadata(
      id, query.contains("metadata") ? query.at("metadata") : json::value(), list);
  Transaction transaction(connection);
  check_not_leased(connection, id, "imported");
  PgResult inserted = connection.exec(
      "importing session " + id,
      "INSERT INTO amplifier_sessions (id, parent_id, created, updated, metadata) "
      "VALUES ($1, $2, $3::timestamptz, now(), $4::jsonb) ON CONFLICT (id) DO NOTHING "
      "RETURNING id",
      {id, metadata.parent_id, metadata.created, json::serialize(store::to_json(metadata))});
  if (inserted.rows() != 1)
    throw QueryError(AMP_ERROR, "session '" + id + "' is already in the database");
  for (std::size_t seq = 0; seq < list.size(); ++seq) {
    if (!list[seq].is_object())
      throw QueryError(AMP_INVALID_ARGUMENT,
                       "message " + std::to_string(seq) + " is not a JSON object");
    const json::value origin = origin_at(query, seq);
    connection.exec(
        "importing message " + std::to_string(seq) + " of session " + id,
        "INSERT INTO amplifier_messages (session_id, seq, role, message, origin) "
        "VALUES ($1, $2, $3, $4, $5::jsonb)",
        {id, std::to_string(seq), std::string(amplifier::context::role_of(list[seq])),
         json::serialize(list[seq]), origin.is_null() ? Param() : Param(json::serialize(origin))});
  }
  transaction.commit("committing the import of session " + id);
  return {{"session_id", id}, {"messages", list.size()}};
}

json::object delete_session(PgConnection &connection, const std::string &id) {
  Transaction transaction(connection);
  check_not_leased(connection, id, "deleted");
  PgResult removed = connection.exec("deleting the messages of session " + id,
                                     "DELETE FROM amplifier_messages WHERE session_id = $1", {id});
  PgResult session = connection.exec("deleting session " + id,
                                     "DELETE FROM amplifier_sessions WHERE id = $1", {id});
  if (session.affected() == 0)
    throw QueryError(AMP_NOT_FOUND, "no session '" + id + "' in the database");
  connection.exec("deleting the lease of session " + id,
                  "DELETE FROM amplifier_session_leases WHERE session_id = $1", {id});
  transaction.commit("committing the deletion of session " + id);
  return {{"session_id", id}, {"messages", removed.affected()}};
}

json::object parsed_query(std::string_view query_json) {
  json::error_code error;
  json::value query = json::parse(query_json, error);
  if (error || !query.is_object())
    throw QueryError(AMP_INVALID_ARGUMENT, "the query is not a JSON object");
  return std::move(query.get_object());
}

PostgresConfig parsed_config(std::string_view config_json) {
  try {
    return read_config(nullptr, config_json);
  } catch (const std::exception &e) {
    throw QueryError(AMP_INVALID_ARGUMENT, e.what());
  }
}

// The database the queries of one config use: the process's shared one (shared_database.hpp),
// which the sessions on that database use too, held for the life of the module. A server asks
// often (every session list), and opening connections and checking the schema per query would
// cost more than the query.
SharedDatabase &query_database(std::string_view config_json) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<SharedDatabase>, std::less<>> held;
  std::lock_guard lock(mutex);
  auto found = held.find(config_json);
  if (found == held.end()) {
    const PostgresConfig config = parsed_config(config_json);
    found = held.emplace(std::string(config_json),
                         SharedDatabase::open(config.connect, config.pool_size, config.retry))
                .first;
  }
  return *found->second;
}

// Passes `query.signal` to the host holding the session (release_listener.hpp): {"session_id",
// "held": whether a live host holds it, so the signal reaches someone}.
json::object signal_session(PgConnection &connection, const std::string &id,
                            const json::object &query) {
  const json::value *signal = query.if_contains("signal");
  if (!signal || !signal->is_object())
    throw QueryError(AMP_INVALID_ARGUMENT, "a signal query needs a \"signal\" object");
  if (connection.exec("reading session " + id, "SELECT 1 FROM amplifier_sessions WHERE id = $1",
                      {id})
          .rows() == 0)
    throw QueryError(AMP_NOT_FOUND, "no session '" + id + "' in the database");
  PgResult held = connection.exec(
      "checking the lease of session " + id,
      "SELECT 1 FROM amplifier_session_leases WHERE session_id = $1 AND expires > now()", {id});
  if (held.rows() == 0) return {{"session_id", id}, {"held", false}};
  try {
    send_signal(connection, id, signal->get_object());
  } catch (const DatabaseError &e) {
    if (e.kind() != DatabaseErrorKind::failed) throw;
    throw QueryError(AMP_INVALID_ARGUMENT, e.detail());
  }
  return {{"session_id", id}, {"held", true}};
}

}  // namespace

std::string answer_sessions_query(std::string_view config_json, std::string_view query_json) {
  const json::object query = parsed_query(query_json);
  const std::string op = text_field(query, "op");
  if (op != "list" && op != "read" && op != "import" && op != "delete" && op != "signal")
    throw QueryError(AMP_UNSUPPORTED, "context-postgres has no sessions query '" + op + "'");
  SharedDatabase &database = query_database(config_json);
  database.prepare();  // a database used for the first time has no tables yet
  std::string id_storage;
  return database.pool().run("answering a sessions query", [&](PgConnection &connection) {
    if (op == "list") return json::serialize(list_sessions(connection, query));
    const std::string &id = checked_session_id(query, id_storage);
    if (op == "read") return json::serialize(read_session(connection, id));
    if (op == "delete") return json::serialize(delete_session(connection, id));
    if (op == "signal") return json::serialize(signal_session(connection, id, query));
    return json::serialize(import_session(connection, id, query));
  });
}

}  // namespace context_postgres

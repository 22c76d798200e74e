#include "postgres_history.hpp"

#include "amplifier/context/message_json.hpp"
#include "amplifier/session_store.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace context_postgres {
namespace json = boost::json;
namespace store = amplifier::session_store;
namespace transcript = amplifier::transcript;
using amplifier::context::Entry;
using amplifier::context::MetadataTracker;

namespace {

const std::string kUpsertSession =
    "INSERT INTO amplifier_sessions (id, parent_id, created, updated, metadata) "
    "VALUES ($1, $2, $3::timestamptz, now(), $4::jsonb) "
    "ON CONFLICT (id) DO UPDATE SET updated = now(), metadata = EXCLUDED.metadata";

const std::string kInsertMessage =
    "INSERT INTO amplifier_messages (session_id, seq, role, message, origin) "
    "VALUES ($1, $2, $3, $4, $5::jsonb)";

Param origin_param(const std::optional<transcript::Origin> &origin) {
  if (!origin) return std::nullopt;
  return json::serialize(transcript::origin_json(*origin));
}

std::optional<transcript::Origin> origin_of(const PgResult &row, int column) {
  if (row.is_null(0, column)) return std::nullopt;
  json::error_code error;
  json::value value = json::parse(row.text(0, column), error);
  return error ? std::nullopt : transcript::origin_from_json(value);
}

}  // namespace

PostgresHistory::PostgresHistory(amp::sdk::Host host, ConnectionPool &pool, SessionLease &lease,
                                 const amplifier::context::SessionIdentity &identity)
    : host_(host),
      pool_(pool),
      lease_(lease),
      session_id_(identity.session_id),
      summary_(identity.session_id, identity.parent_id) {
  summary_.set_labels(identity.labels);
}

// Runs inside the module's destroy, which must not call the host except to log.
PostgresHistory::~PostgresHistory() {
  if (!stored_) return;
  try {
    summary_.touch();
    ConnectionPool::Handle connection = pool_.acquire();
    upsert_session(*connection, summary_.metadata());
  } catch (const std::exception &e) {
    host_.warn(std::string("could not save the session metadata at the end: ") + e.what());
  }
}

LoadedSession PostgresHistory::load() {
  return pool_.run("reading session " + session_id_, [&](PgConnection &connection) {
    LoadedSession loaded;
    std::optional<std::string> saved = read_metadata(connection, loaded);
    if (!loaded.exists) {
      create_row(connection);
      return loaded;
    }
    read_messages(connection, loaded);
    std::optional<store::SessionMetadata> metadata;
    try {
      if (saved) metadata = store::metadata_from_json(json::parse(*saved));
    } catch (const std::exception &e) {
      host_.warn("the metadata of session " + session_id_ +
                 " cannot be read and is rebuilt: " + e.what());
    }
    summary_.adopt(std::move(metadata), std::nullopt);
    summary_.recount(loaded.entries);
    loaded.writer = summary_.writer();
    stored_ = true;
    return loaded;
  });
}

// A new session has its row from the start: a host that acknowledged it (serve's 201) can
// unload it before its first message, and any host then finds it, with the labels it was
// made with (the plan it runs).
void PostgresHistory::create_row(PgConnection &connection) {
  Transaction transaction(connection);
  lease_.confirm(connection);
  summary_.touch();
  upsert_session(connection, summary_.metadata());
  transaction.commit("storing the new session " + session_id_);
  stored_ = true;
}

std::optional<std::string> PostgresHistory::read_metadata(PgConnection &connection,
                                                          LoadedSession &loaded) {
  PgResult row =
      connection.exec("reading session " + session_id_,
                      "SELECT metadata::text FROM amplifier_sessions WHERE id = $1", {session_id_});
  loaded.exists = row.rows() == 1;
  if (!loaded.exists) return std::nullopt;
  return std::string(row.text(0, 0));
}

// Row by row: memory holds the history once, never the result set beside it.
void PostgresHistory::read_messages(PgConnection &connection, LoadedSession &loaded) {
  next_seq_ = 0;
  connection.stream(
      "reading the messages of session " + session_id_,
      "SELECT seq, message, origin::text FROM amplifier_messages WHERE session_id = $1 "
      "ORDER BY seq",
      {session_id_}, [&](const PgResult &row) {
        const std::int64_t seq = std::stoll(std::string(row.text(0, 0)));
        next_seq_ = seq + 1;
        json::error_code error;
        json::value message = json::parse(row.text(0, 1), error);
        if (error || !message.is_object()) {
          loaded.skipped.push_back("message " + std::to_string(seq) + " is not a JSON object");
          return;
        }
        loaded.entries.push_back(Entry{std::move(message), origin_of(row, 2)});
      });
}

void PostgresHistory::upsert_session(PgConnection &connection,
                                     const store::SessionMetadata &metadata) {
  connection.exec("saving the metadata of session " + session_id_, kUpsertSession,
                  {session_id_, metadata.parent_id, metadata.created,
                   json::serialize(store::to_json(metadata))});
}

void PostgresHistory::insert_message(PgConnection &connection, std::int64_t seq, const Entry &entry,
                                     const std::string &text) {
  connection.exec(
      "appending message " + std::to_string(seq) + " of session " + session_id_, kInsertMessage,
      {session_id_, std::to_string(seq), std::string(amplifier::context::role_of(entry.message)),
       text, origin_param(entry.origin)});
}

bool PostgresHistory::already_stored(PgConnection &connection, std::int64_t seq,
                                     const std::string &text) {
  PgResult row = connection.exec(
      "checking message " + std::to_string(seq) + " of session " + session_id_,
      "SELECT message = $3 FROM amplifier_messages WHERE session_id = $1 AND seq = $2",
      {session_id_, std::to_string(seq), text});
  return row.rows() == 1 && row.text(0, 0) == "t";
}

void PostgresHistory::append(const Entry &entry) {
  const std::string text = json::serialize(entry.message);
  const std::int64_t seq = next_seq_;
  MetadataTracker next = summary_;  // takes effect once the message is committed
  next.count(entry.message);
  next.touch();
  bool retrying = false;
  const std::string doing =
      "appending message " + std::to_string(seq) + " of session " + session_id_;
  try {
    pool_.run(doing, [&](PgConnection &connection) {
      // A retry after a lost reply: the first attempt may have committed.
      if (std::exchange(retrying, true) && already_stored(connection, seq, text)) return;
      Transaction transaction(connection);
      lease_.confirm(connection);
      if (maybe_stray_row_)
        connection.exec("removing a message whose append was reported as failed",
                        "DELETE FROM amplifier_messages WHERE session_id = $1 AND seq >= $2",
                        {session_id_, std::to_string(seq)});
      upsert_session(connection, next.metadata());
      insert_message(connection, seq, entry, text);
      transaction.commit("committing message " + std::to_string(seq) + " of session " +
                         session_id_);
    });
  } catch (const DatabaseError &e) {
    if (e.kind() == DatabaseErrorKind::unavailable) maybe_stray_row_ = true;
    throw;
  }
  summary_ = std::move(next);
  next_seq_ = seq + 1;
  stored_ = true;
  maybe_stray_row_ = false;
}

void PostgresHistory::replace(const std::vector<Entry> &entries) {
  MetadataTracker next = summary_;
  next.recount(entries);
  next.touch();
  pool_.run("replacing the messages of session " + session_id_, [&](PgConnection &connection) {
    Transaction transaction(connection);
    lease_.confirm(connection);
    upsert_session(connection, next.metadata());
    connection.exec("replacing the messages of session " + session_id_,
                    "DELETE FROM amplifier_messages WHERE session_id = $1", {session_id_});
    for (std::size_t i = 0; i < entries.size(); ++i)
      insert_message(connection, static_cast<std::int64_t>(i), entries[i],
                     json::serialize(entries[i].message));
    transaction.commit("committing the new messages of session " + session_id_);
  });
  summary_ = std::move(next);
  next_seq_ = static_cast<std::int64_t>(entries.size());
  stored_ = true;
  maybe_stray_row_ = false;
}

// Both are written with the next message (every append commits the metadata with it) or at
// the end: committing them here would put a database round trip, and a wait for a pooled
// connection, in front of every session's first request to its provider.
void PostgresHistory::provider_selected(const transcript::Origin &target) {
  summary_.select_provider(target);
}

void PostgresHistory::degraded(const transcript::Origin &target,
                               const std::vector<amplifier::Degradation> &degradations) {
  summary_.add_degradations(target, degradations);
}

}  // namespace context_postgres

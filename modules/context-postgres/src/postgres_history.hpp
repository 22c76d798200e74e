// One session's rows in PostgreSQL as the engine's HistoryStore.
//
// Every message is its own transaction: the lease is confirmed (and extended), the session row
// upserted with the new metadata, and the message inserted at the session's next sequence
// number under PRIMARY KEY (session_id, seq). A committed message is therefore never lost, and
// one can never be stored twice: a retry after a lost reply first looks for its own row, and a
// second writer collides on the key. set_messages/clear replace every row in one transaction.
//
// The metadata (session_store::SessionMetadata, the fields of context-persistent's
// metadata.json) lives in amplifier_sessions.metadata (jsonb), rewritten with every message;
// changes between messages (provider, degradations) are written at once when the session has
// rows, else with its first message. A new session's row is written when it is opened (load),
// with no messages yet, so a session exists once its host has it.
//
// THREADS: not thread-safe; the engine calls it under its lock.
#pragma once
#include "connection_pool.hpp"
#include "session_lease.hpp"

#include "amplifier/context/context_engine.hpp"
#include "amplifier/context/metadata_tracker.hpp"
#include "amplifier/context/session_identity.hpp"
#include "amplifier_sdk.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace context_postgres {

struct LoadedSession {
  bool exists = false;  // the session has a row: it stored something before
  std::vector<amplifier::context::Entry> entries;
  std::vector<std::string> skipped;  // rows that could not be read, and why
  std::optional<amplifier::transcript::Origin> writer;
};

class PostgresHistory final : public amplifier::context::HistoryStore {
 public:
  PostgresHistory(amp::sdk::Host host, ConnectionPool &pool, SessionLease &lease,
                  const amplifier::context::SessionIdentity &identity);
  // Writes the metadata a last time (best effort, one try).
  ~PostgresHistory() override;
  PostgresHistory(const PostgresHistory &) = delete;
  PostgresHistory &operator=(const PostgresHistory &) = delete;

  // Reads the session's metadata and every message, in order (streamed row by row).
  LoadedSession load();

  // The metadata only: written with the next message, or at the end.
  void provider_selected(const amplifier::transcript::Origin &target) override;
  void degraded(const amplifier::transcript::Origin &target,
                const std::vector<amplifier::Degradation> &degradations) override;
  // One transaction each.
  void append(const amplifier::context::Entry &entry) override;
  void replace(const std::vector<amplifier::context::Entry> &entries) override;

 private:
  std::optional<std::string> read_metadata(PgConnection &connection, LoadedSession &loaded);
  void create_row(PgConnection &connection);
  void read_messages(PgConnection &connection, LoadedSession &loaded);
  void insert_message(PgConnection &connection, std::int64_t seq,
                      const amplifier::context::Entry &entry, const std::string &text);
  bool already_stored(PgConnection &connection, std::int64_t seq, const std::string &text);
  void upsert_session(PgConnection &connection,
                      const amplifier::session_store::SessionMetadata &metadata);

  const amp::sdk::Host host_;
  ConnectionPool &pool_;
  SessionLease &lease_;
  const std::string session_id_;
  amplifier::context::MetadataTracker summary_;
  std::int64_t next_seq_ = 0;
  bool stored_ = false;  // the session has its row
  // An append failed in a way that may have committed after all (the reply was lost and the
  // retries ran out). The caller was told it failed, so the next write removes any such row
  // first: the database never holds a message the context does not.
  bool maybe_stray_row_ = false;
};

}  // namespace context_postgres

// context-postgres: the conversation of context-simple, kept in PostgreSQL so a session lasts
// and can be continued from any host that reaches the database.
//
// On creation the module connects (`dsn`, else $AMPLIFIER_PG_DSN, else libpq's PG*
// variables), brings the schema up to date (schema.hpp; once per process and database: the
// pool, the migration and the lease renewal are shared, shared_database.hpp), and takes the
// session's lease
// (session_lease.hpp): a second host opening the same session asks the holder to let go
// (release_listener.hpp: the holder's host hears `context:release_requested` and ends the
// session if it is idle) and waits a moment (`handoff_ms`); if the holder keeps it (a turn is
// running) the open is refused with "session busy", naming it. When the session has rows it is resumed exactly as context-persistent resumes a
// transcript (libs/cores/context's PersistingContext: repair, load, the repairs appended,
// `context:transcript_loaded`). Every message is then appended in its own transaction
// (postgres_history.hpp). A database that fails mid-turn makes add_message fail with an error
// that starts "database unavailable:" and names the database; nothing committed is lost, and
// once the database is back the session continues.
//
// Its sessions_query (ABI 1.4) lists, reads and imports the database's sessions without a
// session, for `amplifier sessions --plan` and `amplifier serve` (session_queries.hpp).
//
// It registers the capability "session.transcript" = {"session_id", "store": "postgresql",
// "database", "resumed", "messages"}, so the host can tell that the session persists and was
// resumed (`amplifier run --resume ID` with a plan whose context is context-postgres).
#include "postgres_config.hpp"
#include "postgres_history.hpp"
#include "session_lease.hpp"
#include "session_queries.hpp"
#include "shared_database.hpp"

#include "amplifier/context/persisting_context.hpp"
#include "amplifier/context/session_identity.hpp"
#include "amplifier/session_store.hpp"

#include <boost/json/serialize.hpp>
#include <boost/json/value_from.hpp>

namespace context_postgres {
namespace {

namespace json = boost::json;
namespace ctx = amplifier::context;

class PostgresContext final : public ctx::PersistingContext {
 public:
  PostgresContext(amp::sdk::Host host, std::string_view config_json)
      : PostgresContext(host, read_config(&host, config_json)) {}

  // Stops hearing other hosts first: a request for the session never reaches a context
  // that is going away.
  ~PostgresContext() override { shared_->releases().unwatch(this); }

  // The sessions in the database, without a session (session_queries.hpp).
  static std::string sessions_query(std::string_view config_json, std::string_view query_json) {
    return answer_sessions_query(config_json, query_json);
  }

 private:
  PostgresContext(amp::sdk::Host host, const PostgresConfig &config)
      : PersistingContext(host, config.budget, &history_, "context-postgres"),
        identity_(checked(ctx::session_identity(host))),
        shared_(SharedDatabase::open(config.connect, config.pool_size, config.retry)),
        database_(shared_->prepare()),
        lease_(shared_->pool(), shared_->leases(), identity_.session_id, config.lease,
               config.handoff, [host](const std::string &problem) { host.warn(problem); }),
        history_(host, shared_->pool(), lease_, identity_) {
    try {
      open_session();
    } catch (const DatabaseError &e) {
      // Typed, so a host tells "another host has it open" (taking the lease, or losing it
      // while loading) from a failure: AMP_BUSY (ABI 1.5).
      if (e.kind() == DatabaseErrorKind::busy) throw amp::sdk::StatusError(AMP_BUSY, e.what());
      throw;
    }
    // Last, so a constructor that throws leaves no watch behind. Another host asking for this
    // session reaches the host through an event; the host decides.
    shared_->releases().watch(
        this, identity_.session_id,
        [host, id = identity_.session_id](const json::object *signal) {
          if (signal)
            host.notify("context:signal",
                        json::serialize(json::object{{"session_id", id}, {"signal", *signal}}));
          else
            host.notify("context:release_requested",
                        json::serialize(json::object{{"session_id", id}}));
        });
  }

  // Takes the session's lease and loads what the database holds of it.
  void open_session() {
    lease_.acquire();
    LoadedSession loaded = history_.load();
    if (loaded.exists) resume_session(std::move(loaded));
    register_transcript(json::object{{"store", "postgresql"}, {"database", database_}},
                        identity_.session_id, loaded.exists);
  }

  // The same ids as context-persistent accepts, so a session can move between the two.
  static ctx::SessionIdentity checked(ctx::SessionIdentity identity) {
    amplifier::session_store::check_session_id(identity.session_id);
    return identity;
  }

  void resume_session(LoadedSession loaded) {
    for (const auto &reason : loaded.skipped)
      host().warn("session " + identity_.session_id + ": " + reason);
    json::object event = resume(std::move(loaded.entries), loaded.writer);
    event["database"] = database_;
    event["skipped_messages"] = json::value_from(loaded.skipped);
    announce_loaded(std::move(event));
  }

  const ctx::SessionIdentity identity_;
  // The pool, the migration and the lease renewal this process's sessions share.
  const std::shared_ptr<SharedDatabase> shared_;
  const std::string database_;  // where the session lives, for messages and the capability
  SessionLease lease_;          // declared after the pool it uses, destroyed before it
  PostgresHistory history_;
};

}  // namespace
}  // namespace context_postgres

AMP_DEFINE_MODULE(context_postgres::PostgresContext, "context-postgres", "0.1.0",
                  "Conversation context stored in PostgreSQL: one transaction per message, a "
                  "session lease, resumable");

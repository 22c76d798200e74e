#include "session_lease.hpp"

#include "release_listener.hpp"

#include <random>
#include <thread>

#include <unistd.h>

namespace context_postgres {

namespace {

// How often acquire() looks again while a holder it asked lets go, and asks again.
constexpr std::chrono::milliseconds kHandoffPoll{25};
constexpr std::chrono::milliseconds kAskAgain{250};

std::string unique_holder() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  std::random_device random;
  const auto nonce = (static_cast<std::uint64_t>(random()) << 32) | random();
  return std::string(host) + "/" + std::to_string(::getpid()) + "/" + std::to_string(nonce);
}

const std::string kExtend =
    "UPDATE amplifier_session_leases SET expires = now() + make_interval(secs => $3) "
    "WHERE session_id = $1 AND holder = $2 AND expires > now()";

// Inserts the lease, or takes over one that is ours already or has lapsed.
const std::string kTake =
    "INSERT INTO amplifier_session_leases (session_id, holder, expires) "
    "VALUES ($1, $2, now() + make_interval(secs => $3)) "
    "ON CONFLICT (session_id) DO UPDATE "
    "SET holder = EXCLUDED.holder, acquired = now(), expires = EXCLUDED.expires "
    "WHERE amplifier_session_leases.holder = EXCLUDED.holder "
    "OR amplifier_session_leases.expires <= now()";

}  // namespace

SessionLease::SessionLease(ConnectionPool &pool, LeaseRenewer &renewer, std::string session_id,
                           std::chrono::seconds duration, std::chrono::milliseconds handoff,
                           Warn warn)
    : pool_(pool),
      renewer_(renewer),
      session_id_(std::move(session_id)),
      holder_(unique_holder()),
      duration_(duration),
      handoff_(handoff),
      warn_(std::move(warn)) {}

SessionLease::~SessionLease() {
  if (!acquired_) return;
  renewer_.remove(this);
  release();
}

bool SessionLease::extend(PgConnection &connection) {
  return connection
             .exec("renewing the lease of session " + session_id_, kExtend,
                   {session_id_, holder_, std::to_string(duration_.count())})
             .affected() == 1;
}

bool SessionLease::take(PgConnection &connection) {
  return connection
             .exec("taking the lease of session " + session_id_, kTake,
                   {session_id_, holder_, std::to_string(duration_.count())})
             .affected() == 1;
}

DatabaseError SessionLease::busy_error(PgConnection &connection) {
  PgResult current = connection.exec(
      "reading the lease of session " + session_id_,
      "SELECT holder, to_char(expires AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') "
      "FROM amplifier_session_leases WHERE session_id = $1",
      {session_id_});
  std::string who = current.rows() == 1 ? "held by " + std::string(current.text(0, 0)) + " until " +
                                              std::string(current.text(0, 1))
                                        : "held by another host";
  // Where the database is stays out: this text reaches serve's clients.
  return DatabaseError(DatabaseErrorKind::busy,
                       "session " + session_id_ + " is in use by another host (lease " + who +
                           "; a lease lapses once its host stops renewing it)");
}

void SessionLease::acquire() {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + handoff_;
  // Asked again now and then: a notification is lost when the holder's listener is not
  // listening yet (its first session) or is reconnecting.
  auto next_ask = Clock::now();
  for (;;) {
    const bool taken =
        pool_.run("taking the lease of session " + session_id_, [&](PgConnection &connection) {
          if (take(connection)) return true;
          const auto now = Clock::now();
          if (now >= deadline) throw busy_error(connection);
          if (now >= next_ask) {
            request_release(connection, session_id_);
            next_ask = now + kAskAgain;
          }
          return false;
        });
    if (taken) break;
    std::this_thread::sleep_for(kHandoffPoll);
  }
  acquired_ = true;
  renewer_.add(this, std::chrono::duration_cast<std::chrono::milliseconds>(duration_) / 3,
               [this] { renew_once(); });
}

void SessionLease::confirm(PgConnection &connection) {
  if (extend(connection) || take(connection)) return;
  throw busy_error(connection);
}

// One try per tick, no retries: the next tick is the retry, and a renewal must never hold a
// connection for long while the database is away.
void SessionLease::renew_once() {
  std::string problem;
  try {
    ConnectionPool::Handle connection = pool_.acquire();
    if (!extend(*connection) && !take(*connection)) problem = busy_error(*connection).what();
  } catch (const std::exception &e) {
    problem = e.what();
  }
  const bool was_failing = renewal_failing_;
  renewal_failing_ = !problem.empty();
  if (renewal_failing_ && !was_failing)
    warn_("cannot renew the lease of session " + session_id_ + ": " + problem);
  else if (!renewal_failing_ && was_failing)
    warn_("the lease of session " + session_id_ + " is renewed again");
}

void SessionLease::release() noexcept {
  try {
    ConnectionPool::Handle connection = pool_.acquire();
    connection->exec("giving back the lease of session " + session_id_,
                     "DELETE FROM amplifier_session_leases WHERE session_id = $1 AND holder = $2",
                     {session_id_, holder_});
  } catch (const std::exception &e) {
    warn_(std::string("the lease was not given back and will lapse by itself: ") + e.what());
  }
}

}  // namespace context_postgres

// The lease that makes one host at a time the writer of a session.
//
// A row in amplifier_session_leases (session_id, holder, expires), taken when the session is
// opened and renewed every third of `duration` (by the LeaseRenewer the process's sessions on
// that database share) while the host lives;
// a host that dies stops renewing, and its lease lapses `duration` later. Every write checks
// and extends the lease inside its own transaction (confirm), so a host whose lease lapsed
// and was taken by another can never write again: the check fails, and so does the write.
// Expiry is always the database's clock (now()), never a host's, so clock skew between hosts
// does not matter.
//
// Why a row and not a session-level advisory lock on a dedicated connection: such a lock lives
// exactly as long as its connection, so a database restart or a network cut drops it silently
// and lets a second host in while the first still believes it writes alone (the first would
// then need fencing anyway); it also pins one connection per open session. A row survives
// restarts, shows who holds what until when, and lapses by itself when its host dies.
//
// THREADS: thread-safe.
#pragma once
#include "connection_pool.hpp"
#include "lease_renewer.hpp"

#include <chrono>
#include <functional>
#include <string>

namespace context_postgres {

class SessionLease {
 public:
  using Warn = std::function<void(const std::string &)>;

  // `warn` reports renewals that fail (from the renewing thread). `handoff`: how long
  // acquire() waits for a holder it asked to let go (release_listener.hpp).
  SessionLease(ConnectionPool &pool, LeaseRenewer &renewer, std::string session_id,
               std::chrono::seconds duration, std::chrono::milliseconds handoff, Warn warn);
  // Stops renewing and gives the lease back (best effort: a lease that cannot be deleted
  // lapses by itself).
  ~SessionLease();
  SessionLease(const SessionLease &) = delete;
  SessionLease &operator=(const SessionLease &) = delete;

  // Takes the lease and starts renewing it. When another host holds it, asks that host to let
  // go (NOTIFY) and tries again until `handoff` has passed. Throws DatabaseError: busy
  // (naming the session, its holder and when the lease lapses; never where the database is)
  // when the other host kept it, unavailable when the database cannot be reached.
  void acquire();
  // In `connection`'s open transaction: checks that the lease is still ours and extends it,
  // locking its row until the transaction ends; retakes a lease that lapsed when nobody took
  // it meanwhile (an outage longer than `duration`). Throws DatabaseError (busy) otherwise.
  void confirm(PgConnection &connection);

  const std::string &holder() const noexcept { return holder_; }

 private:
  bool extend(PgConnection &connection);
  bool take(PgConnection &connection);
  DatabaseError busy_error(PgConnection &connection);
  void renew_once();
  void release() noexcept;

  ConnectionPool &pool_;
  LeaseRenewer &renewer_;
  const std::string session_id_;
  const std::string holder_;  // "hostname/pid/random": unique per open session
  const std::chrono::seconds duration_;
  const std::chrono::milliseconds handoff_;
  const Warn warn_;

  bool acquired_ = false;
  bool renewal_failing_ = false;  // warned once per streak of failures, not at every tick
};

}  // namespace context_postgres

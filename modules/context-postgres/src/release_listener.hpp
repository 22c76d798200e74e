// Hosts asking each other to let go of a session, or passing on what a client asked of a turn
// running elsewhere: LISTEN/NOTIFY on the channel "amplifier_session_release". A payload is a
// session id (let go of it), or a JSON object {"session_id", "signal": {...}} for the host
// that holds the session (serve: a cancel, an approval's answer; send_signal).
//
// A host that finds a session's lease held by another sends that notification, then retries
// the lease for a moment (SessionLease::acquire, `handoff_ms`). Every process with sessions on
// the database listens on one connection of its own (this class; one per SharedDatabase, like
// the lease renewal thread), and the one holding the session calls what its session watched
// with: context-postgres emits `context:release_requested` to its host, and a host that can
// give the session back now (serve, for an idle session) ends it, which deletes the lease.
// A session running a turn is not given up: the asking host then reports it busy.
//
// Trust: the listening connection uses the plan's `dsn`, which only the operator's plan sets
// (a serve client's plan may not name a dsn or endpoint: host/runtime/plan_trust.cpp). The
// notification carries nothing but an id that is already in the lease table; anyone who
// can connect to the database can send one, and the most it does is make an idle session move
// to the asking host, which the lease allowed anyway once the session was unloaded.
//
// THREADS: thread-safe. unwatch() returns only once the key's callback is not running, so the
// session can end right after it.
#pragma once
#include "connection_pool.hpp"
#include "pg_connection.hpp"

#include <boost/json/object.hpp>

#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>

namespace context_postgres {

inline constexpr std::string_view kReleaseChannel = "amplifier_session_release";

// Sends the notification on `connection` (in no transaction: it is delivered at once).
void request_release(PgConnection &connection, const std::string &session_id);
// Sends `signal` to whichever host holds `session_id`. Throws DatabaseError (failed) when it
// is too large for a notification (PostgreSQL's limit is 8000 bytes).
void send_signal(PgConnection &connection, const std::string &session_id,
                 const boost::json::object &signal);

class ReleaseListener {
 public:
  // Called with null for a request to let go, else with the signal sent.
  using Callback = std::function<void(const boost::json::object *signal)>;

  explicit ReleaseListener(ConnectSettings settings) : settings_(std::move(settings)) {}
  ~ReleaseListener();  // stops the thread; every watch must have been removed
  ReleaseListener(const ReleaseListener &) = delete;
  ReleaseListener &operator=(const ReleaseListener &) = delete;

  // Calls `callback` (on the listening thread) each time a host asks for `session_id` or
  // signals it, until unwatch(key). The first watch starts the thread and its connection.
  void watch(const void *key, std::string session_id, Callback callback);
  void unwatch(const void *key);

 private:
  struct Watch {
    std::string session_id;
    Callback callback;
  };
  void run();
  // Delivers `payloads` to the watches of their session ids (callbacks run unlocked).
  void deliver(const std::vector<std::string> &payloads);

  const ConnectSettings settings_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<const void *, Watch> watches_;
  const void *calling_ = nullptr;  // whose callback runs right now, unlocked
  bool stopping_ = false;
  bool listening_ = false;  // the LISTEN has succeeded once
  int wake_fd_ = -1;  // an eventfd: wakes the poll to stop
  std::thread thread_;
};

}  // namespace context_postgres

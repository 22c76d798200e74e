// What the sessions of one process share for one database: the connection pool, the schema
// migrated once, the thread that renews their leases and the one that hears other hosts ask
// for them (release_listener.hpp). A server holding a thousand
// sessions then keeps `pool_size` connections to PostgreSQL (not one or two per session) and
// one renewing thread (not one per session), and a new session does not migrate again.
//
// Sessions with the same connection settings, pool size and retry policy share one; it lives
// while any of them does (the last to end closes the connections and stops the thread).
//
// THREADS: thread-safe.
#pragma once
#include "connection_pool.hpp"
#include "lease_renewer.hpp"
#include "release_listener.hpp"

#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace context_postgres {

class SharedDatabase {
 public:
  // The process's instance for these settings, made on first use.
  static std::shared_ptr<SharedDatabase> open(const ConnectSettings &settings,
                                              std::size_t pool_size, RetryPolicy retry);

  SharedDatabase(const ConnectSettings &settings, std::size_t pool_size, RetryPolicy retry)
      : pool_(settings, pool_size, retry), releases_(settings) {}

  ConnectionPool &pool() { return pool_; }
  LeaseRenewer &leases() { return leases_; }
  ReleaseListener &releases() { return releases_; }

  // Brings the schema up to date the first time a session of this process asks; returns
  // where the database is, for messages. Sessions asking meanwhile share that attempt and its
  // outcome (a database that is down fails them together, not one timeout after another).
  // Throws DatabaseError, and the next session tries again.
  std::string prepare();

 private:
  void migrate(std::promise<std::string> &outcome);

  ConnectionPool pool_;
  LeaseRenewer leases_;  // after the pool its renewals use, so it stops first
  ReleaseListener releases_;
  std::mutex prepare_mutex_;
  std::optional<std::string> prepared_;        // the target, once migrated
  std::shared_future<std::string> preparing_;  // the attempt under way, if any
};

}  // namespace context_postgres

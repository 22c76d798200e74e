// A small pool of connections to one database, with reconnection.
//
// Connections open lazily and are kept; one that the server dropped (a restart, a network
// cut) is noticed when a statement fails, closed, and replaced by a fresh one the next time
// its slot is used. run() retries work that failed because the server was unavailable, after
// a growing pause (`backoff`, doubled each time, at most kMaxBackoff), `attempts` times in
// all; then the error reaches the caller, naming the database. The work it runs must be safe
// to run again: every writer here is a transaction that either committed or did nothing, and
// checks for its own earlier commit when a reply was lost (see postgres_history.cpp).
//
// THREADS: thread-safe; a caller blocks while every connection is in use.
#pragma once
#include "pg_connection.hpp"

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>
#include <vector>

namespace context_postgres {

struct RetryPolicy {
  int attempts = 4;  // tries in all, the first included
  std::chrono::milliseconds backoff{100};
};

class ConnectionPool {
 public:
  ConnectionPool(ConnectSettings settings, std::size_t size, RetryPolicy retry);

  // A connection of the pool, returned to it when this goes out of scope.
  class Handle {
   public:
    Handle(ConnectionPool &pool, std::size_t slot) : pool_(&pool), slot_(slot) {}
    ~Handle();
    Handle(Handle &&other) noexcept : pool_(other.pool_), slot_(other.slot_) {
      other.pool_ = nullptr;
    }
    Handle(const Handle &) = delete;
    Handle &operator=(const Handle &) = delete;
    Handle &operator=(Handle &&) = delete;
    PgConnection &operator*() const;
    PgConnection *operator->() const { return &**this; }

   private:
    ConnectionPool *pool_;
    std::size_t slot_;
  };

  // Waits for a free connection and opens it when needed. Throws DatabaseError (unavailable).
  Handle acquire();

  // Runs `work(connection)`, retrying per the policy while the database is unavailable. When
  // it gives up, the error says what was being `done` ("appending message 7 of session S")
  // besides the last cause.
  template <class Work>
  auto run(std::string_view doing, Work &&work) {
    for (int attempt = 1;; ++attempt) {
      try {
        Handle connection = acquire();
        return work(*connection);
      } catch (const DatabaseError &e) {
        if (e.kind() != DatabaseErrorKind::unavailable) throw;
        if (attempt >= retry_.attempts) throw gave_up(doing, attempt, e);
      }
      std::this_thread::sleep_for(pause_before(attempt + 1));
    }
  }

  const ConnectSettings &settings() const noexcept { return settings_; }

 private:
  static constexpr std::chrono::milliseconds kMaxBackoff{2000};
  std::chrono::milliseconds pause_before(int attempt) const;
  static DatabaseError gave_up(std::string_view doing, int attempts, const DatabaseError &last);
  void release(std::size_t slot);

  const ConnectSettings settings_;
  const RetryPolicy retry_;
  std::mutex mutex_;
  std::condition_variable freed_;
  std::vector<std::unique_ptr<PgConnection>> connections_;  // null: not open (yet, or again)
  std::vector<bool> in_use_;
};

}  // namespace context_postgres

// context-postgres's configuration.
#pragma once
#include "connection_pool.hpp"

#include "amplifier/context/budget_settings.hpp"
#include "amplifier_sdk.hpp"

#include <chrono>
#include <cstddef>
#include <string_view>

namespace context_postgres {

struct PostgresConfig {
  amplifier::context::BudgetSettings budget;
  // `dsn` (a conninfo string or a postgresql:// URI), else $AMPLIFIER_PG_DSN, else empty:
  // libpq then reads its own PG* variables (PGHOST, PGDATABASE, ...) and defaults.
  // `connect_timeout` (seconds, default 5) unless the dsn sets one.
  ConnectSettings connect;
  // `pool_size` (default 8): connections this process keeps open to the database, opened as
  // needed and shared by all its sessions with the same settings (shared_database.hpp); the
  // lease renewal takes one now and then.
  std::size_t pool_size = 8;
  // `reconnect_attempts` (default 4, the first try included) and `reconnect_backoff_ms`
  // (default 100, doubled each time, at most 2 s): how long a write waits out an outage
  // before it fails.
  RetryPolicy retry;
  // `lease_seconds` (default 30): how long a session stays taken after its host stops
  // renewing the lease (a crash); renewed every third of it.
  std::chrono::seconds lease{30};
  // `handoff_ms` (default 3000): how long opening a session whose lease another host holds
  // waits for that host to let go, after asking it to (release_listener.hpp). A host lets go
  // of an idle session at once (serve unloads it); one running a turn does not, and the
  // open then fails as busy.
  std::chrono::milliseconds handoff{3000};
};

// Throws ConfigError naming the key of a bad value. Unknown keys are warned about through
// `host`, when there is one (sessions_query has none).
PostgresConfig read_config(const amp::sdk::Host *host, std::string_view config_json);

}  // namespace context_postgres

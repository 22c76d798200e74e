#include "postgres_config.hpp"

#include "amplifier/module_support/config_reader.hpp"

#include <cstdlib>

namespace context_postgres {
namespace ms = amplifier::module_support;

namespace {

constexpr std::string_view kDsnVariable = "AMPLIFIER_PG_DSN";

std::string dsn_from(ms::ConfigReader &reader) {
  // An empty dsn (a plan's "${SOME_DSN:-}") counts as none.
  if (auto configured = reader.get_optional_string("dsn"); configured && !configured->empty())
    return *configured;
  const char *from_env = std::getenv(kDsnVariable.data());
  return from_env ? from_env : "";
}

}  // namespace

PostgresConfig read_config(const amp::sdk::Host *host, std::string_view config_json) {
  ms::ConfigReader reader(config_json, "context-postgres config");
  PostgresConfig config;
  config.budget = amplifier::context::read_budget_settings(reader);
  config.connect.dsn = dsn_from(reader);
  config.connect.connect_timeout_seconds = static_cast<int>(
      reader.get_int("connect_timeout", config.connect.connect_timeout_seconds, 1, 3600));
  config.pool_size = static_cast<std::size_t>(
      reader.get_int("pool_size", static_cast<std::int64_t>(config.pool_size), 1, 64));
  config.retry.attempts =
      static_cast<int>(reader.get_int("reconnect_attempts", config.retry.attempts, 1, 100));
  config.retry.backoff = std::chrono::milliseconds(
      reader.get_int("reconnect_backoff_ms", config.retry.backoff.count(), 1, 60000));
  config.lease =
      std::chrono::seconds(reader.get_int("lease_seconds", config.lease.count(), 1, 86400));
  config.handoff = std::chrono::milliseconds(
      reader.get_int("handoff_ms", config.handoff.count(), 0, 60000));
  if (host) reader.warn_unknown_keys(*host);
  return config;
}

}  // namespace context_postgres

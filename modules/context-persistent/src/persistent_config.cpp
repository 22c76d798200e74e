#include "persistent_config.hpp"

#include "amplifier/module_support/config_reader.hpp"
#include "amplifier/session_store.hpp"

namespace context_persistent {
namespace ms = amplifier::module_support;

PersistentConfig read_config(const amp::sdk::Host &host, std::string_view config_json) {
  ms::ConfigReader reader(config_json, "context-persistent config");
  PersistentConfig config;
  config.budget = amplifier::context::read_budget_settings(reader);
  const std::string store_dir = reader.get_string("store_dir", "");
  try {
    config.store_dir = amplifier::session_store::resolve_store_dir(store_dir);
  } catch (const std::exception &e) {
    throw reader.error("store_dir", std::string("cannot be resolved: ") + e.what());
  }
  config.fsync = reader.get_bool("fsync", config.fsync);
  auto &limits = config.read_limits;
  limits.max_line_bytes = static_cast<std::uint64_t>(
      reader.get_int("max_line_bytes", static_cast<std::int64_t>(limits.max_line_bytes), 0));
  limits.max_history_bytes = static_cast<std::uint64_t>(
      reader.get_int("max_history_bytes", static_cast<std::int64_t>(limits.max_history_bytes), 0));
  reader.warn_unknown_keys(host);
  return config;
}

}  // namespace context_persistent

// context-persistent's configuration.
#pragma once
#include "amplifier/context/budget_settings.hpp"
#include "amplifier/transcript.hpp"
#include "amplifier_sdk.hpp"

#include <filesystem>
#include <string_view>

namespace context_persistent {

struct PersistentConfig {
  amplifier::context::BudgetSettings budget;
  // Where sessions live (see amplifier/session_store.hpp): `store_dir`, else the default.
  std::filesystem::path store_dir;
  // `fsync: true` (the default): every message is fdatasync'ed before add_message returns, and
  // every metadata or transcript rewrite is fsync'ed before and after its rename, so it all
  // survives a power loss. `false`: writes reach the page cache only, which survives the
  // process being killed (appends and renames stay whole) but not the machine going down.
  bool fsync = true;
  // What a resume may read: `max_line_bytes` per message line, `max_history_bytes` for the
  // whole transcript (which a resumed context holds in memory). Past either, the resume fails
  // with an error naming the key; the transcript is left as it is.
  amplifier::transcript::ReadLimits read_limits;
};

// Throws ConfigError naming the key of a bad value.
PersistentConfig read_config(const amp::sdk::Host &host, std::string_view config_json);

}  // namespace context_persistent

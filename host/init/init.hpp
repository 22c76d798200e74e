// `amplifier init`: what its interactive and non-interactive forms share.
#pragma once
#include "init_setup.hpp"
#include "settings.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace amplifier::host::init {

struct InitOptions {
  std::string provider;           // --provider: set up without questions
  std::vector<std::string> sets;  // --set KEY=VALUE
  bool no_verify = false;         // --no-verify: no list_models check
};

// Questions on the terminal; returns the exit code.
int run_interactive_init(const InitOptions &options);
// --provider with --set; returns the exit code, throws std::runtime_error for a wrong answer.
int run_batch_init(const InitOptions &options);

// The current settings.yaml. One that cannot be read is reported on stderr and treated as
// absent: init is how a broken file gets replaced.
std::optional<UserSettings> settings_for_init();

// KEY=VALUE, split at the first '='; throws for text without one.
using KeyValue = std::pair<std::string, std::string>;
KeyValue split_key_value(const std::string &text);

// `provider`'s fields, with what settings.yaml holds for it when it is the provider named
// there. They are read from an instance mounted with an empty config, or, for a provider that
// refuses one (provider-chat-completions wants its base_url), with the saved config and
// `given`. Throws the module's reason when it will not mount.
ProviderSetup start_setup(const std::string &provider, const std::optional<UserSettings> &saved,
                          const std::vector<KeyValue> &given);

// Writes keys.env (the secrets typed in this run) and then settings.yaml, and says so.
void save_setup(const ProviderSetup &setup, const std::optional<UserSettings> &saved);

}  // namespace amplifier::host::init

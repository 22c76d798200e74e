// The user's own setup, written by `amplifier init` under $XDG_CONFIG_HOME/amplifier:
// settings.yaml (the provider the built-in plan uses, with its non-secret config) and
// keys.env (secrets as NAME=value lines, settings_keys.hpp).
#pragma once
#include "settings_yaml.hpp"

#include <boost/json/object.hpp>

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

#include <sys/types.h>

namespace amplifier::host {

class SettingsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// $XDG_CONFIG_HOME/amplifier when XDG_CONFIG_HOME is an absolute path (the XDG spec says to
// ignore a relative one), else ~/.config/amplifier. Throws SettingsError when there is no home.
std::filesystem::path user_config_dir();
std::filesystem::path settings_file();  // user_config_dir()/settings.yaml
std::filesystem::path keys_file();      // user_config_dir()/keys.env
// Creates user_config_dir() (mode 0700: keys.env lives there) when it is missing.
void ensure_user_config_dir();

// settings.yaml:
//   provider:
//     module: provider-openai        # the provider of the built-in plan
//     config: {base_url: ..., api_key: "${OPENAI_API_KEY}"}
// Other top-level keys are kept when init rewrites the file.
struct UserSettings {
  std::filesystem::path file;
  YAML::Node document;         // the whole file, a map
  std::string provider;        // module id; empty when the file names none
  YAML::Node provider_config;  // a map, possibly empty
};

// The operator's price entries (settings.yaml `pricing:`, in prices.json's per-model shape:
// {MODEL: {input, output, cache_read?, cache_write?, cache_write_1h?}}), as JSON; empty when
// there are none. Throws SettingsError naming the file and the entry when it is not a map of
// maps of numbers (the cost library checks the prices themselves).
boost::json::object pricing_of(const UserSettings &settings);

// nullopt when `file` does not exist. A file that is not valid YAML or has the wrong shape
// throws SettingsError "<file>:<line>:<col>: <problem>".
std::optional<UserSettings> load_user_settings(const std::filesystem::path &file);
std::optional<UserSettings> load_user_settings();  // settings_file()

// The mount plan entry (under `providers:`, indented two spaces) for `provider` with
// `config`, as the built-in plan and init's check of the answers both use it.
std::string provider_plan_entry(const std::string &provider, const YAML::Node &config);

// The text of settings.yaml for `document`, with a header saying what wrote it.
std::string settings_text(const YAML::Node &document);

// Replaces `file` with `text` atomically: a new file created with `mode` (never wider, even
// for a moment, whatever the umask), written, synced, then renamed over the old one.
void write_file_atomically(const std::filesystem::path &file, const std::string &text, mode_t mode);

}  // namespace amplifier::host

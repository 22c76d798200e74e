// What `amplifier init`'s interactive and non-interactive forms share: the settings read and
// written, a provider's fields from a mounted instance.
#include "init.hpp"

#include "init_provider.hpp"
#include "settings_keys.hpp"

#include <boost/json/object.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>

#include <unistd.h>

namespace amplifier::host {

namespace init {

namespace json = boost::json;

namespace {

constexpr mode_t kSettingsFileMode = 0644;

// A key saved now but shadowed at run time by the same variable in the environment. Trust:
// reads the operator's own environment (init runs in their shell), only to warn.
void warn_if_shadowed(const std::string &name) {
  if (!std::getenv(name.c_str()) || loaded_from_keys_file(name)) return;
  std::printf(
      "note: %s is also set in this environment, and the environment wins over "
      "keys.env: unset it to use the saved key\n",
      name.c_str());
}

YAML::Node settings_document(const ProviderSetup &setup, const std::optional<UserSettings> &saved) {
  YAML::Node document = saved ? YAML::Clone(saved->document) : YAML::Node(YAML::NodeType::Map);
  YAML::Node provider(YAML::NodeType::Map);
  provider["module"] = setup.provider();
  if (const YAML::Node config = setup.config(); config.size() > 0) provider["config"] = config;
  document["provider"] = provider;
  return document;
}

// The config an instance is mounted with to describe its fields when an empty one is refused:
// the saved config with the values given so far on top (typed as a mount plan types them).
json::object bootstrap_config(const std::string &provider, const YAML::Node &saved_config,
                              const std::vector<KeyValue> &given) {
  YAML::Node config = saved_config ? YAML::Clone(saved_config) : YAML::Node(YAML::NodeType::Map);
  for (const auto &[key, value] : given) {
    ConfigField untyped;  // no field known yet: the value is typed as YAML would type it
    untyped.id = key;
    config[key] = config_value(untyped, value);
  }
  return plan_config(provider, config, process_env());
}

std::vector<ConfigField> read_fields(const std::string &provider, const YAML::Node &saved_config,
                                     const std::vector<KeyValue> &given,
                                     std::vector<std::string> &warnings) {
  try {
    return read_config_fields(ProviderInstance(provider, {}).info(), warnings);
  } catch (const std::runtime_error &) {
    if (given.empty() && (!saved_config || saved_config.size() == 0)) throw;
  }
  const json::object config = bootstrap_config(provider, saved_config, given);
  std::vector<ConfigField> fields =
      read_config_fields(ProviderInstance(provider, config).info(), warnings);
  // Such an instance reports the values it was given as the defaults: they are not.
  for (auto &field : fields)
    if (config.contains(field.id)) field.default_value = nullptr;
  return fields;
}

}  // namespace

std::optional<UserSettings> settings_for_init() {
  try {
    return load_user_settings();
  } catch (const SettingsError &e) {
    std::fprintf(stderr, "amplifier: warning: %s (init replaces the file)\n", e.what());
    return std::nullopt;
  }
}

KeyValue split_key_value(const std::string &text) {
  const auto equals = text.find('=');
  if (equals == std::string::npos || equals == 0)
    throw std::runtime_error(fmt::format("'{}': expected KEY=VALUE", text));
  return {text.substr(0, equals), text.substr(equals + 1)};
}

ProviderSetup start_setup(const std::string &provider, const std::optional<UserSettings> &saved,
                          const std::vector<KeyValue> &given) {
  const bool same_provider = saved && saved->provider == provider;
  const YAML::Node saved_config = same_provider ? saved->provider_config : YAML::Node();
  std::vector<std::string> warnings;
  const std::vector<ConfigField> fields = read_fields(provider, saved_config, given, warnings);
  for (const auto &warning : warnings)
    std::fprintf(stderr, "amplifier: warning: %s: config_fields: %s\n", provider.c_str(),
                 warning.c_str());
  return ProviderSetup(provider, fields, saved_config);
}

void save_setup(const ProviderSetup &setup, const std::optional<UserSettings> &saved) {
  ensure_user_config_dir();
  const auto secrets = setup.secrets();
  // Keys first: settings.yaml never refers to a key that is not saved yet.
  if (!secrets.empty()) save_keys(keys_file(), secrets);
  write_file_atomically(settings_file(), settings_text(settings_document(setup, saved)),
                        kSettingsFileMode);
  std::printf("wrote %s\n", settings_file().c_str());
  for (const auto &[name, value] : secrets) {
    std::printf("saved %s in %s (mode 0600)\n", name.c_str(), keys_file().c_str());
    warn_if_shadowed(name);
  }
  std::printf("`amplifier run` and `amplifier chat` without --plan now use %s\n",
              setup.provider().c_str());
}

}  // namespace init

}  // namespace amplifier::host

// The installed providers, and one provider mounted outside any session: what `amplifier init`
// reads the config fields from and checks the answers with.
#pragma once
#include "init_setup.hpp"

#include "amplifier/mount_plan.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <memory>
#include <string>
#include <vector>

namespace amplifier::host::init {

struct InstalledProvider {
  std::string id;
  std::string description;
  bool offline = false;  // a mock: canned answers, no network
};

// Every provider module on the search path: the real ones by id, then the offline ones
// (ids with "mock" in them) last. Modules that fail to load are left out.
std::vector<InstalledProvider> installed_providers();

struct ModelListing {
  bool ok = false;
  std::vector<std::string> ids;
  std::string error;  // why the listing failed
};

class ProviderInstance {
 public:
  // Loads and mounts `provider` with `config`. Throws std::runtime_error with the module's
  // reason when it cannot.
  ProviderInstance(const std::string &provider, const boost::json::object &config);
  ~ProviderInstance();
  ProviderInstance(const ProviderInstance &) = delete;
  ProviderInstance &operator=(const ProviderInstance &) = delete;

  const boost::json::value &info() const;
  // One list_models call. The module's own report of a failure (it logs why) becomes `error`.
  ModelListing list_models();

 private:
  struct Parts;
  std::unique_ptr<Parts> parts_;
};

// The JSON config a mount plan makes of `config` (settings.yaml's form) for `provider`.
boost::json::object plan_config(const std::string &provider, const YAML::Node &config,
                                const EnvLookup &lookup);

// The config `amplifier run` will hand the provider for these answers, read through the same
// mount plan code, with the secrets typed in this run standing in for keys.env.
boost::json::object config_for_check(const ProviderSetup &setup);

// Mounts the provider with the answers and lists its models once: the check init makes.
// A short timeout and one retry, unless the answers set them, so a wrong URL fails quickly.
ModelListing check_setup(const ProviderSetup &setup);

}  // namespace amplifier::host::init

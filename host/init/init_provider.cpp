#include "init_provider.hpp"

#include "settings.hpp"

#include "amplifier/coordinator.hpp"
#include "amplifier/hooks.hpp"
#include "amplifier/log.hpp"
#include "amplifier/module_loader.hpp"
#include "amplifier/mount_plan.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <stdexcept>

namespace amplifier::host::init {

namespace json = boost::json;

namespace {

// A check that fails should fail in seconds, not after the vendor's ten-minute timeout.
constexpr int kCheckTimeoutSeconds = 30;
constexpr int kCheckMaxRetries = 1;

// The kernel's log lines while a module call runs: the module's own go to `lines` (they
// explain a failure), the rest to stderr as usual. The default sink is back afterwards.
class ModuleLogCapture {
 public:
  explicit ModuleLogCapture(std::string module) : module_(std::move(module)) {
    set_log_sink([this](LogLevel level, std::string_view component, std::string_view message) {
      if (component == module_ && level >= LogLevel::Warning) {
        std::lock_guard lock(mutex_);
        lines_.emplace_back(message);
        return;
      }
      std::fprintf(stderr, "amplifier: %s: [%.*s] %.*s\n", std::string(to_string(level)).c_str(),
                   static_cast<int>(component.size()), component.data(),
                   static_cast<int>(message.size()), message.data());
    });
  }
  ~ModuleLogCapture() { set_log_sink({}); }
  ModuleLogCapture(const ModuleLogCapture &) = delete;
  ModuleLogCapture &operator=(const ModuleLogCapture &) = delete;

  std::string joined() {
    std::lock_guard lock(mutex_);
    return fmt::format("{}", fmt::join(lines_, "; "));
  }

 private:
  std::string module_;
  std::mutex mutex_;
  std::vector<std::string> lines_;
};

std::vector<std::string> model_ids(const json::value &listing) {
  std::vector<std::string> ids;
  for (const auto &model : listing.get_array()) {
    const json::value *id = model.is_object() ? model.get_object().if_contains("id") : nullptr;
    if (id && id->is_string()) ids.emplace_back(id->get_string());
  }
  return ids;
}

bool is_offline(std::string_view id) { return id.find("mock") != std::string_view::npos; }

}  // namespace

std::vector<InstalledProvider> installed_providers() {
  ModuleLoader loader;
  std::vector<InstalledProvider> providers;
  for (const auto &entry : loader.list()) {
    if (!entry.module || entry.module->descriptor->kind != AMP_KIND_PROVIDER) continue;
    const amp_module_descriptor &d = *entry.module->descriptor;
    const std::string id(d.id);
    const bool listed =
        std::any_of(providers.begin(), providers.end(), [&](const auto &p) { return p.id == id; });
    if (!listed) providers.push_back({id, d.description ? d.description : "", is_offline(id)});
  }
  std::stable_sort(providers.begin(), providers.end(), [](const auto &a, const auto &b) {
    return a.offline != b.offline ? !a.offline : a.id < b.id;
  });
  return providers;
}

struct ProviderInstance::Parts {
  ModuleLoader loader;  // first: the library outlives the instance mounted from it
  HookRegistry hooks;
  CancellationToken cancellation;
  Coordinator coordinator{hooks, cancellation, "amplifier-init", ""};
  MountedModule *provider = nullptr;
};

ProviderInstance::ProviderInstance(const std::string &provider, const json::object &config)
    : parts_(std::make_unique<Parts>()) {
  try {
    parts_->provider =
        &parts_->coordinator.mount("providers", provider, parts_->loader.load(provider), config);
  } catch (const ModuleLoadError &e) {
    throw std::runtime_error(e.what());
  }
}

ProviderInstance::~ProviderInstance() = default;

const json::value &ProviderInstance::info() const { return parts_->provider->info; }

ModelListing ProviderInstance::list_models() {
  MountedModule &provider = *parts_->provider;
  ModuleLogCapture log(std::string(provider.id()));
  amp::sdk::StringWriter out;
  amp_status status;
  {
    InvocationGuard inside(provider);
    status = provider.table<amp_provider_vtable>()->list_models(provider.instance, &out);
  }
  ModelListing listing;
  if (status != AMP_OK) {
    const std::string why = log.joined();
    listing.error =
        why.empty() ? fmt::format("list_models failed ({})", static_cast<int>(status)) : why;
    return listing;
  }
  json::error_code ec;
  const json::value models = json::parse(out.text, ec);
  if (ec || !models.is_array()) {
    listing.error = "list_models did not return a JSON array";
    return listing;
  }
  listing.ok = true;
  listing.ids = model_ids(models);
  return listing;
}

json::object plan_config(const std::string &provider, const YAML::Node &config,
                         const EnvLookup &lookup) {
  const std::string plan =
      "session:\n  orchestrator: loop-basic\n  context: context-simple\n"
      "providers:\n" +
      provider_plan_entry(provider, config);
  try {
    return parse_mount_plan(plan, "<amplifier init answers>", lookup).providers.at(0).config;
  } catch (const MountPlanError &e) {
    std::string problems;
    for (const auto &p : e.problems()) problems += (problems.empty() ? "" : "; ") + p.message;
    throw std::runtime_error("the answers do not make a valid config: " + problems);
  }
}

json::object config_for_check(const ProviderSetup &setup) {
  const auto secrets = setup.secrets();
  EnvLookup lookup = [&secrets](std::string_view name) -> std::optional<std::string> {
    if (auto it = secrets.find(std::string(name)); it != secrets.end()) return it->second;
    return process_env()(name);
  };
  return plan_config(setup.provider(), setup.config(), lookup);
}

ModelListing check_setup(const ProviderSetup &setup) {
  json::object config = config_for_check(setup);
  if (setup.field("timeout") && !config.contains("timeout"))
    config["timeout"] = kCheckTimeoutSeconds;
  if (setup.field("max_retries") && !config.contains("max_retries"))
    config["max_retries"] = kCheckMaxRetries;
  try {
    ProviderInstance instance(setup.provider(), config);
    return instance.list_models();
  } catch (const std::exception &e) {
    return ModelListing{false, {}, e.what()};
  }
}

}  // namespace amplifier::host::init

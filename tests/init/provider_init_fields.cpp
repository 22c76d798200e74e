// provider-init-fields: a provider for the `amplifier init` tests whose config_fields use
// everything init handles: a secret with an env_var and one without, a required choice with a
// default, a field shown only for one choice (show_when), a boolean, the model field, and
// fields asked only once a model is chosen (requires_model, one of them also show_when).
// list_models accepts only the key "good-key" (no network); turns are not its business.
#include "amplifier_sdk.hpp"

#include <boost/json.hpp>

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace {

namespace json = boost::json;

constexpr const char *kKeyVariable = "INIT_FIELDS_API_KEY";

json::object field(const char *id, const char *type, const char *prompt) {
  return json::object{{"id", id}, {"display_name", id}, {"field_type", type}, {"prompt", prompt}};
}

json::array config_fields() {
  json::object api_key = field("api_key", "secret", "The test key");
  api_key["env_var"] = kKeyVariable;
  api_key["required"] = true;
  json::object token = field("token", "secret", "A second secret, without env_var");
  json::object region = field("region", "choice", "Where the test service runs");
  region["choices"] = json::array{"eu", "us"};
  region["default"] = "eu";
  region["required"] = true;
  json::object us_zone = field("us_zone", "text", "The US zone");
  us_zone["show_when"] = json::object{{"region", "us"}};
  json::object verbose = field("verbose", "boolean", "Say more");
  verbose["default"] = false;
  json::object model = field("default_model", "text", "The model");
  model["default"] = "m-default";
  json::object effort = field("effort", "choice", "How hard the model tries");
  effort["choices"] = json::array{"low", "high"};
  effort["requires_model"] = true;
  json::object budget = field("effort_budget", "text", "Tokens for high effort");
  budget["requires_model"] = true;
  budget["show_when"] = json::object{{"effort", json::array{"high"}}};
  return json::array{api_key, token, region, us_zone, verbose, model, effort, budget};
}

class InitFieldsProvider final : public amp::sdk::ProviderModule {
 public:
  InitFieldsProvider(amp::sdk::Host host, std::string_view config)
      : ProviderModule(host), config_(json::parse(config).as_object()) {
    // The types init writes must be the types a provider reads.
    if (auto *v = config_.if_contains("verbose"); v && !v->is_bool())
      throw std::runtime_error("verbose must be a boolean");
    if (auto *v = config_.if_contains("effort_budget"); v && !v->is_int64())
      throw std::runtime_error("effort_budget must be an integer");
  }

  std::string info() override {
    return json::serialize(json::object{{"id", "provider-init-fields"},
                                        {"display_name", "Init fields test provider"},
                                        {"credential_env_vars", json::array{kKeyVariable}},
                                        {"config_fields", config_fields()}});
  }

  std::string list_models() override {
    if (api_key() != "good-key")
      throw std::runtime_error("authentication: wrong key for the test service");
    return R"([{"id":"m-alpha"},{"id":"m-beta"}])";
  }

  void complete(amp_call_id call, std::string_view) override {
    host().call_fail(call, "invalid_request", "provider-init-fields does not run turns");
  }

 private:
  std::string api_key() const {
    if (auto *v = config_.if_contains("api_key"); v && v->is_string() && !v->get_string().empty())
      return std::string(v->get_string());
    const char *env = std::getenv(kKeyVariable);
    return env ? env : "";
  }

  json::object config_;
};

}  // namespace

AMP_DEFINE_MODULE(InitFieldsProvider, "provider-init-fields", "1.0.0",
                  "Test provider for amplifier init (show_when, requires_model, secrets)");

#include "responses_provider.hpp"

#include "responses_endpoint.hpp"
#include "responses_errors.hpp"
#include "responses_info.hpp"
#include "responses_call.hpp"

#include "amplifier/errors.hpp"
#include "amplifier/model.hpp"

#include <boost/json/serialize.hpp>

namespace openai_responses {

namespace json = boost::json;
namespace transport = amplifier::transport;
namespace provider = amplifier::provider;
using amplifier::ErrorKind;
using amplifier::KernelError;

namespace {

std::shared_ptr<const ResponsesConfig> read_config(const amp::sdk::Host &host,
                                                   std::string_view config_json, Flavor flavor) {
  const std::string_view id = flavor == Flavor::openai ? kOpenAiModuleId : kAzureModuleId;
  auto config =
      provider::read_module_config<ResponsesConfig>(host, id, config_json, [flavor](auto &reader) {
        return flavor == Flavor::openai
                   ? ResponsesConfig::read_openai(reader, provider::process_env)
                   : ResponsesConfig::read_azure(reader, provider::process_env);
      });
  if (auto missing = missing_setting(*config); !missing.empty())
    host.info(std::string(id) + ": " + missing + "; completions will fail until it is set");
  return config;
}

// Why a call cannot be made with this config, as the error it ends with (kind none: it can).
std::optional<KernelError> unusable(const ResponsesConfig &config) {
  const std::string missing = missing_setting(config);
  if (missing.empty()) return std::nullopt;
  const ErrorKind kind =
      config.base_url.empty() ? ErrorKind::configuration : ErrorKind::authentication;
  return KernelError::make(kind, missing);
}

}  // namespace

ResponsesProvider::ResponsesProvider(amp::sdk::Host host, std::string_view config_json,
                                     Flavor flavor)
    : ProviderModule(host),
      config_(read_config(host, config_json, flavor)),
      calls_(host, config_->module_id, provider::client_options(*config_, {})) {}

std::string ResponsesProvider::info() { return json::serialize(provider_info(*config_)); }

void ResponsesProvider::complete(amp_call_id call, std::string_view request_json) {
  auto request = calls_.accept_request(call, request_json);
  if (!request) return;
  // Checked per call, not at mount: a plan without a key must still mount and list.
  if (auto error = unusable(*config_)) return calls_.finish_at_once(call, *error, AMP_ERROR);
  if (resolve_model(*config_, request->model).api_model.empty())
    return calls_.finish_at_once(
        call,
        KernelError::make(ErrorKind::configuration,
                          config_->display_name +
                              ": no model to send: name one in the request, or configure "
                              "default_deployment or deployment_mapping"),
        AMP_ERROR);
  calls_.start_http(call,
                    std::make_shared<ResponsesCall>(host(), call, config_,
                                                    amplifier::ChatRequest(*request)));  // kept: a copy
}

void ResponsesProvider::cancel(amp_call_id call, amp_cancel_level level) {
  calls_.cancel(call, level);
}

std::string ResponsesProvider::list_models() {
  if (auto error = unusable(*config_)) throw amplifier::KernelException(*error);
  transport::CallResult result = calls_.run_blocking(provider::whole_request(
      *config_, "GET", models_url(*config_), request_headers(*config_, false, false),
      error_options(*config_, "")));
  if (result.error) {
    refine_error(*config_, *result.error);
    throw amplifier::KernelException(std::move(*result.error));
  }
  const json::value page = amplifier::parse_json(result.body);
  if (!page.is_object()) throw std::runtime_error("GET /models did not return a JSON object");
  json::array models;
  append_models(page.get_object(), models);
  return json::serialize(models);
}

}  // namespace openai_responses

#include "messages_client.hpp"

#include "error_mapping.hpp"
#include "http_settings.hpp"
#include "message_call.hpp"
#include "provider_info.hpp"
#include "request_mapping.hpp"

#include "amplifier/errors.hpp"
#include "amplifier/model.hpp"
#include "amplifier/transport/call.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace provider_anthropic {

namespace json = boost::json;
namespace transport = amplifier::transport;
using amplifier::ErrorKind;
using amplifier::KernelError;

namespace {

KernelError missing_api_key() {
  return KernelError::make(
      ErrorKind::authentication,
      "no Anthropic API key: set " + std::string(kApiKeyEnv) + " or the provider's api_key config");
}

}  // namespace

MessagesClient::MessagesClient(amp::sdk::Host host, std::shared_ptr<const AnthropicConfig> config)
    : host_(host),
      config_(std::move(config)),
      calls_(host, std::string(kModuleId), client_options(*config_, {})) {}

void MessagesClient::start(amp_call_id call, std::string_view request_json) {
  auto request = calls_.accept_request(call, request_json);
  if (!request) return;
  // Checked per call, not at mount: a plan without a key must still mount and list.
  if (config_->api_key.empty()) return calls_.finish_at_once(call, missing_api_key(), AMP_ERROR);
  calls_.start_http(
      call, std::make_shared<MessageCall>(host_, call, config_, map_request(*request, *config_),
                                          request->timeout));
}

json::array MessagesClient::list_models() {
  if (config_->api_key.empty()) throw amplifier::KernelException(missing_api_key());
  json::array models;
  std::string after_id;
  do {
    transport::CallSpec spec =
        whole_request(*config_, "GET", models_url(*config_, after_id),
                      anthropic_headers(*config_, false), anthropic_error_options(""));
    spec.request.headers.erase("content-type");
    spec.retry = retry_options(*config_);  // overloaded waits longer here
    transport::CallResult result = calls_.run_blocking(std::move(spec));
    if (result.error) {
      refine_anthropic_error(*result.error, &result.head.headers);
      throw amplifier::KernelException(std::move(*result.error));
    }
    const json::value page = amplifier::parse_json(result.body);
    if (!page.is_object()) throw std::runtime_error("GET /v1/models did not return a JSON object");
    after_id = append_model_page(page.get_object(), models);
  } while (!after_id.empty());
  return models;
}

}  // namespace provider_anthropic

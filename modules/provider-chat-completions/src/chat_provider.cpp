#include "chat_provider.hpp"

#include "chat_call.hpp"
#include "chat_request.hpp"

#include "amplifier/errors.hpp"
#include "amplifier/model.hpp"
#include "amplifier/module_support/json_util.hpp"

#include <boost/json/serialize.hpp>

namespace chat_completions {

namespace json = boost::json;
namespace transport = amplifier::transport;
namespace provider = amplifier::provider;
using amplifier::ErrorKind;
using amplifier::KernelError;

namespace {

json::array config_fields(const ChatConfig &config) {
  json::array fields;
  json::object base_url =
      provider::config_field("base_url", "Base URL", "text", "The server's API root, including /v1",
                             json::string(config.base_url));
  base_url["required"] = true;
  fields.push_back(std::move(base_url));
  fields.push_back(provider::config_field("api_key", "API key", "secret",
                                          "Sent as a Bearer token when the server wants one"));
  fields.push_back(provider::config_field("default_model", "Model", "text",
                                          "Model used when a request names none",
                                          json::string(config.default_model)));
  fields.push_back(provider::config_field("max_tokens", "Max output tokens", "text",
                                          "Sent as max_tokens when a request sets no limit"));
  fields.push_back(
      provider::config_field("temperature", "Temperature", "text", "Sampling temperature"));
  fields.push_back(provider::config_field("extra_headers", "Extra headers", "text",
                                          "Header name -> value, sent with every request"));
  fields.push_back(provider::config_field("extra_body", "Extra body fields", "text",
                                          "Merged into every request body"));
  provider::append_http_config_fields(config, fields);
  return fields;
}

}  // namespace

json::object provider_info(const ChatConfig &config) {
  return json::object{
      {"id", kModuleId},
      {"display_name", "OpenAI-compatible (Chat Completions)"},
      {"credential_env_vars", json::array{}},
      {"capabilities",
       {{"streaming", true},
        {"tools", true},
        {"parallel_tool_calls", true},
        {"thinking", true},
        {"vision", true},
        {"modalities", {{"input", json::array{"text", "image"}}, {"output", json::array{"text"}}}},
        {"response_format", json::array{"text", "json_object", "json_schema"}}}},
      {"defaults",
       {{"model", config.default_model},
        {"timeout", static_cast<double>(config.timeout.count()) / 1000.0}}},
      {"config_fields", config_fields(config)},
  };
}

ChatProvider::ChatProvider(amp::sdk::Host host, std::string_view config_json)
    : ProviderModule(host),
      config_(provider::read_module_config<ChatConfig>(host, kModuleId, config_json,
                                                       &ChatConfig::read)),
      calls_(host, std::string(kModuleId), provider::client_options(*config_, {})) {}

std::string ChatProvider::info() { return json::serialize(provider_info(*config_)); }

void ChatProvider::complete(amp_call_id call, std::string_view request_json) {
  auto request = calls_.accept_request(call, request_json);
  if (!request) return;
  MappedChat mapped = map_request(*request, *config_);
  if (mapped.model.empty())
    return calls_.finish_at_once(
        call,
        KernelError::make(ErrorKind::configuration,
                          "no model to send: name one in the request or set default_model"),
        AMP_ERROR);
  calls_.start_http(
      call, std::make_shared<ChatCall>(host(), call, config_, std::move(mapped), request->timeout));
}

void ChatProvider::cancel(amp_call_id call, amp_cancel_level level) { calls_.cancel(call, level); }

std::string ChatProvider::list_models() {
  transport::ErrorMappingOptions errors;
  errors.provider = std::string(kModuleId);
  transport::CallResult result = calls_.run_blocking(
      provider::whole_request(*config_, "GET", config_->base_url + "/models",
                              chat_headers(*config_, false, "application/json"), errors));
  if (result.error) throw amplifier::KernelException(std::move(*result.error));
  const json::value page = amplifier::parse_json(result.body);
  json::array models;
  const json::array *data =
      page.is_object() ? amplifier::module_support::array_at(page.get_object(), "data") : nullptr;
  if (!data) throw std::runtime_error("GET /models did not return {data: [...]}");
  for (const json::value &item : *data) {
    if (!item.is_object()) continue;
    const std::string_view id = amplifier::module_support::string_at(item.get_object(), "id");
    if (!id.empty())
      models.push_back(json::object{
          {"id", id}, {"display_name", id}, {"capabilities", json::array{"tools", "streaming"}}});
  }
  return json::serialize(models);
}

}  // namespace chat_completions

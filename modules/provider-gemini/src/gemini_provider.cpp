#include "gemini_provider.hpp"

#include "gemini_call.hpp"
#include "gemini_request.hpp"

#include "amplifier/errors.hpp"
#include "amplifier/model.hpp"
#include "amplifier/module_support/json_util.hpp"

#include <boost/json/serialize.hpp>
#include <boost/url/encode.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>

namespace gemini {

namespace json = boost::json;
namespace transport = amplifier::transport;
namespace provider = amplifier::provider;
using amplifier::ErrorKind;
using amplifier::KernelError;
using amplifier::module_support::array_at;
using amplifier::module_support::count_at;
using amplifier::module_support::string_at;

namespace {

std::shared_ptr<const GeminiConfig> read_config(const amp::sdk::Host &host,
                                                std::string_view config_json) {
  auto config = provider::read_module_config<GeminiConfig>(
      host, kModuleId, config_json,
      [](auto &reader) { return GeminiConfig::read(reader, provider::process_env); });
  if (config->api_key.empty())
    host.info(std::string(kModuleId) + ": no API key (set " + std::string(kKeyEnv) +
              "); completions will fail until it is set");
  return config;
}

json::array config_fields(const GeminiConfig &config) {
  json::array fields;
  json::object key = provider::config_field("api_key", "API key", "secret", "Your Gemini API key");
  key["env_var"] = kKeyEnv;
  key["required"] = true;
  fields.push_back(std::move(key));
  fields.push_back(provider::config_field("base_url", "Base URL", "text", "API endpoint",
                                          json::string(config.base_url)));
  fields.push_back(provider::config_field("default_model", "Model", "text",
                                          "Model used when a request names none",
                                          json::string(config.default_model)));
  fields.push_back(provider::config_field("max_tokens", "Max output tokens", "text",
                                          "maxOutputTokens when a request sets no limit"));
  fields.push_back(
      provider::config_field("temperature", "Temperature", "text", "Sampling temperature"));
  fields.push_back(provider::config_field("thinking_budget", "Thinking budget", "text",
                                          "Tokens the model may think (-1 dynamic, 0 off)"));
  fields.push_back(provider::config_field("include_thoughts", "Include thoughts", "boolean",
                                          "Return thought summaries"));
  provider::append_http_config_fields(config, fields);
  return fields;
}

}  // namespace

json::object provider_info(const GeminiConfig &config) {
  return json::object{
      {"id", kModuleId},
      {"display_name", "Google Gemini"},
      {"credential_env_vars", json::array{kKeyEnv, kKeyEnvFallback}},
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
        {"context_window", 1048576},
        {"max_output_tokens", 65536},
        {"timeout", static_cast<double>(config.timeout.count()) / 1000.0}}},
      {"config_fields", config_fields(config)},
  };
}

GeminiProvider::GeminiProvider(amp::sdk::Host host, std::string_view config_json)
    : ProviderModule(host),
      config_(read_config(host, config_json)),
      calls_(host, std::string(kModuleId), provider::client_options(*config_, {})) {}

std::string GeminiProvider::info() { return json::serialize(provider_info(*config_)); }

void GeminiProvider::complete(amp_call_id call, std::string_view request_json) {
  auto request = calls_.accept_request(call, request_json);
  if (!request) return;
  if (config_->api_key.empty())
    return calls_.finish_at_once(
        call,
        KernelError::make(ErrorKind::authentication,
                          "no Gemini API key: set " + std::string(kKeyEnv) + " (or " +
                              std::string(kKeyEnvFallback) + ") or the provider's api_key config"),
        AMP_ERROR);
  calls_.start_http(
      call, std::make_shared<GeminiCall>(host(), call, config_, map_request(*request, *config_),
                                         request->timeout));
}

void GeminiProvider::cancel(amp_call_id call, amp_cancel_level level) {
  calls_.cancel(call, level);
}

std::string GeminiProvider::list_models() {
  json::array models;
  std::string page_token;
  do {  // the listing is paged
    transport::ErrorMappingOptions errors;
    errors.provider = std::string(kModuleId);
    const std::string url =
        config_->base_url + "/v1beta/models?pageSize=1000" +
        (page_token.empty()
             ? ""
             : "&pageToken=" + boost::urls::encode(page_token, boost::urls::unreserved_chars));
    transport::CallResult result = calls_.run_blocking(provider::whole_request(
        *config_, "GET", url, gemini_headers(*config_, false, "application/json"), errors));
    if (result.error) {
      refine_error(*config_, *result.error);
      throw amplifier::KernelException(std::move(*result.error));
    }
    const json::value page = amplifier::parse_json(result.body);
    if (!page.is_object()) throw std::runtime_error("GET /v1beta/models did not return an object");
    if (const json::array *listed = array_at(page.get_object(), "models")) {
      for (const json::value &item : *listed) {
        if (!item.is_object()) continue;
        const json::object &model = item.get_object();
        std::string id(string_at(model, "name"));
        if (id.rfind("models/", 0) == 0) id.erase(0, 7);
        if (id.empty()) continue;
        json::object entry{{"id", id},
                           {"display_name", string_at(model, "displayName")},
                           {"capabilities", json::array{"tools", "streaming"}}};
        if (auto window = count_at(model, "inputTokenLimit")) entry["context_window"] = *window;
        if (auto output = count_at(model, "outputTokenLimit")) entry["max_output_tokens"] = *output;
        models.push_back(std::move(entry));
      }
    }
    page_token = string_at(page.get_object(), "nextPageToken");
  } while (!page_token.empty());
  return json::serialize(models);
}

}  // namespace gemini

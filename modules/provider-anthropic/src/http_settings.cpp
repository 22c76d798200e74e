#include "http_settings.hpp"

#include "error_mapping.hpp"


namespace provider_anthropic {

namespace transport = amplifier::transport;

namespace {

std::string joined(const std::vector<std::string> &items, std::string_view separator) {
  std::string out;
  for (const auto &item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

}  // namespace

std::string messages_url(const AnthropicConfig &config) { return config.base_url + "/v1/messages"; }

std::string models_url(const AnthropicConfig &config, const std::string &after_id) {
  std::string url = config.base_url + "/v1/models?limit=1000";
  if (!after_id.empty()) url += "&after_id=" + after_id;
  return url;
}

transport::Headers anthropic_headers(const AnthropicConfig &config, bool streamed) {
  transport::Headers headers = amplifier::provider::json_headers(
      true, streamed ? "text/event-stream" : "application/json");
  headers.set("x-api-key", config.api_key);
  headers.set("anthropic-version", std::string(kApiVersion));
  if (!config.beta_headers.empty()) headers.set("anthropic-beta", joined(config.beta_headers, ","));
  return headers;
}

transport::RetryOptions retry_options(const AnthropicConfig &config) {
  return amplifier::provider::retry_options(config, kOverloadedDelayMultiplier);
}

}  // namespace provider_anthropic

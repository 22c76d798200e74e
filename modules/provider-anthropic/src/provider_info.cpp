#include "provider_info.hpp"

#include "amplifier/provider/http_config.hpp"

#include <array>
#include <string_view>

namespace provider_anthropic {

namespace json = boost::json;
using amplifier::provider::config_field;

namespace {

constexpr std::int64_t kContextWindow = 200000;

struct ModelFamily {
  std::string_view id_prefix;
  std::int64_t max_output_tokens;
  bool thinking;
};

// Output limits by model family (Anthropic's models overview); the first matching prefix wins.
constexpr std::array kFamilies = {
    ModelFamily{"claude-opus-4-1", 32000, true},   ModelFamily{"claude-opus-4-2025", 32000, true},
    ModelFamily{"claude-opus-4-0", 32000, true},   ModelFamily{"claude-opus-4", 64000, true},
    ModelFamily{"claude-sonnet-4", 64000, true},   ModelFamily{"claude-haiku-4", 64000, true},
    ModelFamily{"claude-3-7-sonnet", 64000, true}, ModelFamily{"claude-3-5", 8192, false},
    ModelFamily{"claude-3-", 4096, false},
};
constexpr ModelFamily kNewerModel{"", 64000, true};  // families newer than this table

const ModelFamily &family_of(std::string_view id) {
  for (const auto &family : kFamilies)
    if (id.substr(0, family.id_prefix.size()) == family.id_prefix) return family;
  return kNewerModel;
}

json::array config_fields() {
  json::object api_key =
      config_field("api_key", "API key", "secret", "Your Anthropic API key");
  api_key["env_var"] = kApiKeyEnv;
  api_key["required"] = true;
  json::object base_url =
      config_field("base_url", "Base URL", "text", "API endpoint", json::string(kDefaultBaseUrl));
  base_url["env_var"] = kBaseUrlEnv;
  json::object effort = config_field("reasoning_effort", "Reasoning effort", "choice",
                              "Switches extended thinking on with a budget for this effort");
  effort["choices"] = json::array{"none", "minimal", "low", "medium", "high"};
  return json::array{
      std::move(api_key),
      std::move(base_url),
      config_field("default_model", "Model", "text", "Model used when a request names none",
            json::string(kDefaultModel)),
      config_field("max_tokens", "Max output tokens", "text",
                   "Output limit when a request sets none",
            kDefaultMaxTokens),
      config_field("temperature", "Temperature", "text", "Sampling temperature (0 to 1)"),
      config_field("timeout", "Timeout (s)", "text",
            "Longest wait for a response or between streamed chunks", 600),
      config_field("max_retries", "Max retries", "text", "Retries of a failed request", 5),
      config_field("min_retry_delay", "Min retry delay (s)", "text", "First backoff delay", 1),
      config_field("max_retry_delay", "Max retry delay (s)", "text", "Longest backoff delay", 60),
      config_field("extended_thinking", "Extended thinking", "boolean",
            "Let the model think before answering", false),
      config_field("thinking_budget_tokens", "Thinking budget", "text",
            "Tokens the model may spend thinking"),
      std::move(effort),
      config_field("enable_prompt_caching", "Prompt caching", "boolean",
            "Cache the stable prefix of requests", true),
      config_field("cache_ttl", "Cache TTL", "text", "How long a cached prefix lives: 5m or 1h",
                   "5m"),
      config_field("beta_headers", "Beta features", "text",
                   "anthropic-beta values, comma separated"),
      config_field("debug", "Debug events", "boolean",
            "llm:request:debug / llm:response:debug with the payloads, cut", false),
      config_field("raw_debug", "Raw debug events", "boolean",
            "With debug: llm:request:raw / llm:response:raw, complete", false),
      config_field("raw", "Raw payloads", "boolean",
            "The same as debug and raw_debug together (older name)", false),
      config_field("verify_tls", "Verify TLS", "boolean",
            "Check the server certificate (turn off only for testing)", true),
      config_field("ca_file", "CA file", "text", "Extra trusted certificate authorities (PEM)"),
  };
}

}  // namespace

json::object provider_info(const AnthropicConfig &config) {
  json::object defaults{{"model", config.default_model},
                        {"max_tokens", config.max_tokens},
                        {"context_window", kContextWindow},
                        {"timeout", static_cast<double>(config.timeout.count()) / 1000.0},
                        {"enable_prompt_caching", config.enable_prompt_caching}};
  if (config.temperature) defaults["temperature"] = *config.temperature;
  return json::object{
      {"id", kModuleId},
      {"display_name", "Anthropic"},
      {"credential_env_vars", json::array{kApiKeyEnv}},
      {"capabilities",
       {{"streaming", true},
        {"tools", true},
        {"parallel_tool_calls", true},
        {"thinking", true},
        {"vision", true},
        {"prompt_caching", true},
        {"modalities", {{"input", json::array{"text", "image"}}, {"output", json::array{"text"}}}},
        {"response_format", json::array{"text"}}}},
      {"defaults", std::move(defaults)},
      {"config_fields", config_fields()},
  };
}

std::string append_model_page(const json::object &page, json::array &models) {
  const json::value *data = page.if_contains("data");
  if (data && data->is_array()) {
    for (const json::value &item : data->get_array()) {
      if (!item.is_object()) continue;
      const json::value *id = item.get_object().if_contains("id");
      if (!id || !id->is_string()) continue;
      const json::value *name = item.get_object().if_contains("display_name");
      const ModelFamily &family = family_of(id->get_string());
      json::array capabilities{"tools", "streaming", "vision"};
      if (family.thinking) capabilities.push_back("thinking");
      models.push_back(json::object{{"id", *id},
                                    {"display_name", name && name->is_string() ? *name : *id},
                                    {"context_window", kContextWindow},
                                    {"max_output_tokens", family.max_output_tokens},
                                    {"capabilities", std::move(capabilities)}});
    }
  }
  const json::value *more = page.if_contains("has_more");
  const json::value *last = page.if_contains("last_id");
  if (more && more->is_bool() && more->get_bool() && last && last->is_string())
    return std::string(last->get_string());
  return {};
}

}  // namespace provider_anthropic

#include "anthropic_config.hpp"

#include <algorithm>
#include <array>

namespace provider_anthropic {

namespace ms = amplifier::module_support;
namespace provider = amplifier::provider;
using provider::string_or_env;

namespace {

constexpr std::array kReasoningEfforts = {std::string_view("none"), std::string_view("minimal"),
                                          std::string_view("low"), std::string_view("medium"),
                                          std::string_view("high")};
constexpr std::int64_t kMaxOutputTokens = 1'000'000;

}  // namespace

bool is_known_reasoning_effort(std::string_view effort) {
  for (auto known : kReasoningEfforts)
    if (effort == known) return true;
  return false;
}

AnthropicConfig AnthropicConfig::read(ms::ConfigReader &reader, const EnvLookup &env) {
  AnthropicConfig config;
  config.api_key = string_or_env(reader, "api_key", kApiKeyEnv, env).value_or("");
  config.base_url = provider::checked_base_url(
      reader, "base_url",
      string_or_env(reader, "base_url", kBaseUrlEnv, env).value_or(std::string(kDefaultBaseUrl)));
  config.default_model = reader.get_string("default_model", std::string(kDefaultModel));
  if (config.default_model.empty()) throw reader.error("default_model", "must not be empty");
  config.max_tokens = reader.get_int("max_tokens", kDefaultMaxTokens, 1, kMaxOutputTokens);
  if (reader.has("temperature"))
    config.temperature = reader.get_number("temperature", 1.0, 0.0, 1.0);
  provider::read_http_config(reader, config);
  config.extended_thinking = reader.get_bool("extended_thinking", false);
  if (reader.has("thinking_budget_tokens"))
    config.thinking_budget_tokens = reader.get_int("thinking_budget_tokens", kMinThinkingBudget,
                                                   kMinThinkingBudget, kMaxOutputTokens);
  config.reasoning_effort = reader.get_optional_string("reasoning_effort");
  if (config.reasoning_effort && !is_known_reasoning_effort(*config.reasoning_effort))
    throw reader.error(
        "reasoning_effort",
        "must be one of none, minimal, low, medium, high; got '" + *config.reasoning_effort + "'");
  config.enable_prompt_caching = reader.get_bool("enable_prompt_caching", true);
  config.cache_ttl = reader.get_string("cache_ttl", config.cache_ttl);
  if (config.cache_ttl != "5m" && config.cache_ttl != "1h")
    throw reader.error("cache_ttl", "must be \"5m\" or \"1h\", got '" + config.cache_ttl + "'");
  config.beta_headers = reader.get_string_list("beta_headers", {});
  // A one-hour cache is a beta of the Messages API.
  if (config.enable_prompt_caching && config.cache_ttl == "1h" &&
      std::find(config.beta_headers.begin(), config.beta_headers.end(), kExtendedCacheTtlBeta) ==
          config.beta_headers.end())
    config.beta_headers.emplace_back(kExtendedCacheTtlBeta);
  // Read by the kernel (provider selection); listed here so it is not reported as unknown.
  reader.get_int("priority", 100);
  return config;
}

}  // namespace provider_anthropic

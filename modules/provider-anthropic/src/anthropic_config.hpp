// provider-anthropic's configuration, read once when the instance is mounted.
#pragma once
#include "amplifier/module_support/config_reader.hpp"
#include "amplifier/provider/http_config.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace provider_anthropic {

inline constexpr std::string_view kModuleId = "provider-anthropic";
inline constexpr std::string_view kApiKeyEnv = "ANTHROPIC_API_KEY";
inline constexpr std::string_view kBaseUrlEnv = "ANTHROPIC_BASE_URL";
inline constexpr std::string_view kDefaultBaseUrl = "https://api.anthropic.com";
inline constexpr std::string_view kDefaultModel = "claude-sonnet-4-5";
// The anthropic-beta value a one-hour cache TTL needs.
inline constexpr std::string_view kExtendedCacheTtlBeta = "extended-cache-ttl-2025-04-11";
inline constexpr std::string_view kApiVersion = "2023-06-01";
inline constexpr std::int64_t kDefaultMaxTokens = 8192;
// Anthropic's smallest accepted thinking budget.
inline constexpr std::int64_t kMinThinkingBudget = 1024;

// The reasoning efforts a request or the config may ask for. "none" switches thinking off.
bool is_known_reasoning_effort(std::string_view effort);

// timeout, retries and TLS come from HttpConfig (provider-core), read the way every provider
// reads them.
struct AnthropicConfig : amplifier::provider::HttpConfig {
  // Empty when neither the config nor the environment gave one: the instance still mounts (so
  // `plan check` and listings work) and every call fails with an authentication error.
  std::string api_key;
  std::string base_url{kDefaultBaseUrl};
  std::string default_model{kDefaultModel};
  std::int64_t max_tokens = kDefaultMaxTokens;
  std::optional<double> temperature;
  bool extended_thinking = false;
  std::optional<std::int64_t> thinking_budget_tokens;
  std::optional<std::string> reasoning_effort;
  bool enable_prompt_caching = true;
  // How long a cache breakpoint's prefix is kept: "5m" (the API's default, not sent) or "1h"
  // (sent as cache_control.ttl on every breakpoint, with the extended-cache-ttl beta).
  std::string cache_ttl = "5m";
  std::vector<std::string> beta_headers;

  using EnvLookup = amplifier::provider::EnvLookup;

  // Reads every key so `reader` can warn about the unknown ones; `env` supplies the defaults
  // of api_key and base_url. Throws ConfigError naming the first bad value.
  static AnthropicConfig read(amplifier::module_support::ConfigReader &reader,
                              const EnvLookup &env);
};

using amplifier::provider::process_env;

}  // namespace provider_anthropic

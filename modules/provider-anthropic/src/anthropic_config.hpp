// provider-anthropic's configuration, read once when the instance is mounted.
#pragma once
#include "amplifier/module_support/config_reader.hpp"

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
inline constexpr std::string_view kApiVersion = "2023-06-01";
inline constexpr std::int64_t kDefaultMaxTokens = 8192;
// Anthropic's smallest accepted thinking budget.
inline constexpr std::int64_t kMinThinkingBudget = 1024;

// The reasoning efforts a request or the config may ask for. "none" switches thinking off.
bool is_known_reasoning_effort(std::string_view effort);

struct AnthropicConfig {
  // Empty when neither the config nor the environment gave one: the instance still mounts (so
  // `plan check` and listings work) and every call fails with an authentication error.
  std::string api_key;
  std::string base_url{kDefaultBaseUrl};
  std::string default_model{kDefaultModel};
  std::int64_t max_tokens = kDefaultMaxTokens;
  std::optional<double> temperature;
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};  // a whole call, retries excluded
  int max_retries = 5;
  std::chrono::milliseconds min_retry_delay{1000};
  std::chrono::milliseconds max_retry_delay{60000};
  bool extended_thinking = false;
  std::optional<std::int64_t> thinking_budget_tokens;
  std::optional<std::string> reasoning_effort;
  bool enable_prompt_caching = true;
  std::vector<std::string> beta_headers;
  bool raw = false;  // llm:request / llm:response carry the (redacted) wire payloads
  bool verify_tls = true;
  std::optional<std::string> ca_file;

  using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;

  // Reads every key so `reader` can warn about the unknown ones; `env` supplies the defaults
  // of api_key and base_url. Throws ConfigError naming the first bad value.
  static AnthropicConfig read(amplifier::module_support::ConfigReader &reader,
                              const EnvLookup &env);
};

// The process environment, as an EnvLookup (unset and empty both read as absent).
std::optional<std::string> process_env(std::string_view name);

}  // namespace provider_anthropic

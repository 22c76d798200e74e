#include "anthropic_config.hpp"

#include <array>
#include <cmath>
#include <cstdlib>

namespace provider_anthropic {

namespace ms = amplifier::module_support;

namespace {

constexpr std::array kReasoningEfforts = {std::string_view("none"), std::string_view("minimal"),
                                          std::string_view("low"), std::string_view("medium"),
                                          std::string_view("high")};
constexpr double kMaxSeconds = 24 * 60 * 60;  // a day: anything longer is a typo
constexpr std::int64_t kMaxOutputTokens = 1'000'000;

std::chrono::milliseconds seconds_key(ms::ConfigReader &reader, std::string_view key,
                                      std::chrono::milliseconds fallback, double min_seconds) {
  const double fallback_seconds = static_cast<double>(fallback.count()) / 1000.0;
  const double seconds = reader.get_number(key, fallback_seconds, min_seconds, kMaxSeconds);
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(seconds * 1000.0)));
}

// The config value when given and non-empty, else the environment variable, else nullopt.
// An empty config value counts as absent because "${ANTHROPIC_API_KEY}" expands to "" when the
// variable is unset.
std::optional<std::string> string_or_env(ms::ConfigReader &reader, std::string_view key,
                                         std::string_view env_name,
                                         const AnthropicConfig::EnvLookup &env) {
  if (auto value = reader.get_optional_string(key); value && !value->empty()) return value;
  if (auto value = env(env_name); value && !value->empty()) return value;
  return std::nullopt;
}

std::string without_trailing_slashes(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

}  // namespace

bool is_known_reasoning_effort(std::string_view effort) {
  for (auto known : kReasoningEfforts)
    if (effort == known) return true;
  return false;
}

std::optional<std::string> process_env(std::string_view name) {
  const char *value = std::getenv(std::string(name).c_str());
  if (!value || !*value) return std::nullopt;
  return std::string(value);
}

AnthropicConfig AnthropicConfig::read(ms::ConfigReader &reader, const EnvLookup &env) {
  AnthropicConfig config;
  config.api_key = string_or_env(reader, "api_key", kApiKeyEnv, env).value_or("");
  config.base_url = without_trailing_slashes(
      string_or_env(reader, "base_url", kBaseUrlEnv, env).value_or(std::string(kDefaultBaseUrl)));
  if (config.base_url.rfind("http://", 0) != 0 && config.base_url.rfind("https://", 0) != 0)
    throw reader.error("base_url",
                       "must start with http:// or https://, got '" + config.base_url + "'");
  config.default_model = reader.get_string("default_model", std::string(kDefaultModel));
  if (config.default_model.empty()) throw reader.error("default_model", "must not be empty");
  config.max_tokens = reader.get_int("max_tokens", kDefaultMaxTokens, 1, kMaxOutputTokens);
  if (reader.has("temperature"))
    config.temperature = reader.get_number("temperature", 1.0, 0.0, 1.0);
  config.timeout = seconds_key(reader, "timeout", config.timeout, 0.001);
  config.max_retries = static_cast<int>(reader.get_int("max_retries", config.max_retries, 0, 100));
  config.min_retry_delay = seconds_key(reader, "min_retry_delay", config.min_retry_delay, 0.0);
  config.max_retry_delay = seconds_key(reader, "max_retry_delay", config.max_retry_delay, 0.0);
  if (config.max_retry_delay < config.min_retry_delay)
    throw reader.error("max_retry_delay", "must not be smaller than min_retry_delay");
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
  config.beta_headers = reader.get_string_list("beta_headers", {});
  config.raw = reader.get_bool("raw", false);
  config.verify_tls = reader.get_bool("verify_tls", true);
  config.ca_file = reader.get_optional_string("ca_file");
  // Read by the kernel (provider selection); listed here so it is not reported as unknown.
  reader.get_int("priority", 100);
  return config;
}

}  // namespace provider_anthropic

// The configuration of provider-openai and provider-azure-openai, read once at mount. Both speak
// the Responses API; they differ only in where requests go and how they authenticate, which
// the Endpoint part of the config captures.
#pragma once
#include "amplifier/module_support/config_reader.hpp"
#include "amplifier/provider/http_config.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace openai_responses {

enum class Flavor { openai, azure };

inline constexpr std::string_view kOpenAiModuleId = "provider-openai";
inline constexpr std::string_view kAzureModuleId = "provider-azure-openai";
inline constexpr std::string_view kOpenAiKeyEnv = "OPENAI_API_KEY";
inline constexpr std::string_view kOpenAiBaseUrlEnv = "OPENAI_BASE_URL";
inline constexpr std::string_view kOpenAiDefaultBaseUrl = "https://api.openai.com/v1";
inline constexpr std::string_view kOpenAiDefaultModel = "gpt-5.1";
inline constexpr std::string_view kAzureEndpointEnv = "AZURE_OPENAI_ENDPOINT";
inline constexpr std::string_view kAzureKeyEnv = "AZURE_OPENAI_API_KEY";
inline constexpr std::string_view kAzureAdTokenEnv = "AZURE_OPENAI_AD_TOKEN";
inline constexpr std::string_view kAzureApiVersionEnv = "OPENAI_API_VERSION";

// The reasoning efforts the Responses API takes ("none" sends no reasoning parameter).
bool is_known_reasoning_effort(std::string_view effort);

struct ResponsesConfig : amplifier::provider::HttpConfig {
  Flavor flavor = Flavor::openai;
  std::string module_id{kOpenAiModuleId};
  std::string display_name{"OpenAI"};

  // Credentials. Empty when none was configured: the instance still mounts (so `plan check`
  // and listings work) and every call fails with an authentication error.
  std::string api_key;         // OpenAI: Authorization: Bearer; Azure: the api-key header
  std::string azure_ad_token;  // Azure only: Authorization: Bearer (never with api_key)

  // OpenAI: base_url including /v1. Azure: the resource endpoint (https://x.openai.azure.com).
  std::string base_url;
  std::optional<std::string> organization;  // OpenAI-Organization header
  std::optional<std::string> project;       // OpenAI-Project header
  // Azure: a dated version ("2025-04-01-preview") selects the deployments path with
  // ?api-version=; absent, "v1" or "preview" select the v1 path.
  std::optional<std::string> api_version;
  std::map<std::string, std::string, std::less<>> deployment_mapping;  // model -> deployment
  std::optional<std::string> default_deployment;

  std::string default_model;
  std::optional<std::int64_t> max_tokens;  // sent as max_output_tokens
  std::optional<double> temperature;
  std::optional<std::string> reasoning_effort;
  std::string reasoning_summary{"auto"};  // "auto", "concise", "detailed" or "none"
  bool store = false;
  // Prompt caching (the API caches long prefixes by itself): a key that groups requests sharing
  // a prefix, and how long the cache is kept ("in_memory" or "24h"). Sent when set.
  std::optional<std::string> prompt_cache_key;
  std::optional<std::string> prompt_cache_retention;
  int max_continuations = 5;

  bool has_credentials() const { return !api_key.empty() || !azure_ad_token.empty(); }
  // The secret to scrub from logged payloads.
  std::string_view secret() const { return api_key.empty() ? azure_ad_token : api_key; }
  // True when requests go to Azure's deployments path (a dated api_version).
  bool azure_deployments_path() const;

  // Read every key so `reader` can warn about the unknown ones; `env` supplies the defaults
  // of credentials and endpoints. Throw ConfigError naming the first bad value.
  static ResponsesConfig read_openai(amplifier::module_support::ConfigReader &reader,
                                     const amplifier::provider::EnvLookup &env);
  static ResponsesConfig read_azure(amplifier::module_support::ConfigReader &reader,
                                    const amplifier::provider::EnvLookup &env);
};

// The model a request names (or the default), and the name the API gets for it: the model
// itself on OpenAI, its deployment on Azure (deployment_mapping, else default_deployment, else
// the model name). Empty when nothing names one.
struct ModelTarget {
  std::string model;
  std::string api_model;
};
ModelTarget resolve_model(const ResponsesConfig &config, const std::optional<std::string> &model);

}  // namespace openai_responses

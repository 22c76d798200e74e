#include "responses_config.hpp"

#include <array>
#include <cctype>

namespace openai_responses {

namespace ms = amplifier::module_support;
namespace provider = amplifier::provider;
using provider::string_or_env;

namespace {

constexpr std::array kReasoningEfforts = {std::string_view("none"), std::string_view("minimal"),
                                          std::string_view("low"),  std::string_view("medium"),
                                          std::string_view("high"), std::string_view("xhigh")};
constexpr std::array kReasoningSummaries = {std::string_view("auto"), std::string_view("concise"),
                                            std::string_view("detailed"), std::string_view("none")};
constexpr std::int64_t kMaxOutputTokens = 1'000'000;

template <std::size_t N>
bool one_of(std::string_view value, const std::array<std::string_view, N> &choices) {
  for (auto choice : choices)
    if (value == choice) return true;
  return false;
}

template <std::size_t N>
std::string listed(const std::array<std::string_view, N> &choices) {
  std::string out;
  for (auto choice : choices) out += (out.empty() ? "" : ", ") + std::string(choice);
  return out;
}

// The keys both flavours read the same way: model, limits, reasoning, storage, transport.
void read_common(ms::ConfigReader &reader, ResponsesConfig &config) {
  config.default_model = reader.get_string("default_model", config.default_model);
  if (reader.has("max_tokens"))
    config.max_tokens = reader.get_int("max_tokens", 4096, 1, kMaxOutputTokens);
  if (reader.has("temperature"))
    config.temperature = reader.get_number("temperature", 1.0, 0.0, 2.0);
  config.reasoning_effort = reader.get_optional_string("reasoning_effort");
  if (config.reasoning_effort && !is_known_reasoning_effort(*config.reasoning_effort))
    throw reader.error("reasoning_effort", "must be one of " + listed(kReasoningEfforts) +
                                               "; got '" + *config.reasoning_effort + "'");
  config.reasoning_summary = reader.get_string("reasoning_summary", config.reasoning_summary);
  if (!one_of(config.reasoning_summary, kReasoningSummaries))
    throw reader.error("reasoning_summary", "must be one of " + listed(kReasoningSummaries) +
                                                "; got '" + config.reasoning_summary + "'");
  config.store = reader.get_bool("store", config.store);
  config.prompt_cache_key = reader.get_optional_string("prompt_cache_key");
  config.prompt_cache_retention = reader.get_optional_string("prompt_cache_retention");
  if (config.prompt_cache_retention && *config.prompt_cache_retention != "in_memory" &&
      *config.prompt_cache_retention != "24h")
    throw reader.error("prompt_cache_retention", "must be \"in_memory\" or \"24h\", got '" +
                                                     *config.prompt_cache_retention + "'");
  config.max_continuations =
      static_cast<int>(reader.get_int("max_continuations", config.max_continuations, 0, 100));
  provider::read_http_config(reader, config);
  // Read by the kernel (provider selection); listed here so it is not reported as unknown.
  reader.get_int("priority", 100);
}

bool is_dated_version(std::string_view version) {
  // "2025-04-01-preview", "2024-10-21": a date first.
  return version.size() >= 10 && std::isdigit(static_cast<unsigned char>(version[0])) &&
         version[4] == '-' && version[7] == '-';
}

}  // namespace

bool is_known_reasoning_effort(std::string_view effort) {
  return one_of(effort, kReasoningEfforts);
}

bool ResponsesConfig::azure_deployments_path() const {
  return flavor == Flavor::azure && api_version && is_dated_version(*api_version);
}

ResponsesConfig ResponsesConfig::read_openai(ms::ConfigReader &reader,
                                             const provider::EnvLookup &env) {
  ResponsesConfig config;
  config.default_model = std::string(kOpenAiDefaultModel);
  config.api_key = string_or_env(reader, "api_key", kOpenAiKeyEnv, env).value_or("");
  config.base_url =
      provider::checked_base_url(reader, "base_url",
                                 string_or_env(reader, "base_url", kOpenAiBaseUrlEnv, env)
                                     .value_or(std::string(kOpenAiDefaultBaseUrl)));
  config.organization = reader.get_optional_string("organization");
  config.project = reader.get_optional_string("project");
  read_common(reader, config);
  if (config.default_model.empty()) throw reader.error("default_model", "must not be empty");
  return config;
}

ResponsesConfig ResponsesConfig::read_azure(ms::ConfigReader &reader,
                                            const provider::EnvLookup &env) {
  ResponsesConfig config;
  config.flavor = Flavor::azure;
  config.module_id = std::string(kAzureModuleId);
  config.display_name = "Azure OpenAI";
  config.default_model.clear();  // a deployment names the model on Azure
  const auto endpoint = string_or_env(reader, "azure_endpoint", kAzureEndpointEnv, env);
  // Without an endpoint the instance still mounts; calls then fail naming what is missing.
  if (endpoint) config.base_url = provider::checked_base_url(reader, "azure_endpoint", *endpoint);
  const auto key = reader.get_optional_string("api_key");
  const auto token = reader.get_optional_string("azure_ad_token");
  const bool key_given = key && !key->empty(), token_given = token && !token->empty();
  if (key_given && token_given)
    throw reader.error("azure_ad_token",
                       "cannot be used together with api_key: configure one way to authenticate");
  if (key_given)
    config.api_key = *key;
  else if (token_given)
    config.azure_ad_token = *token;
  else if (auto env_key = env(kAzureKeyEnv))
    config.api_key = *env_key;
  else if (auto env_token = env(kAzureAdTokenEnv))
    config.azure_ad_token = *env_token;
  config.api_version = string_or_env(reader, "api_version", kAzureApiVersionEnv, env);
  if (auto mapping = reader.get_object("deployment_mapping")) {
    for (const auto &entry : mapping->object()) {
      const std::string model(entry.key());
      config.deployment_mapping[model] = mapping->get_string(model, "");
      if (config.deployment_mapping[model].empty())
        throw mapping->error(model, "must name a deployment");
    }
  }
  config.default_deployment = reader.get_optional_string("default_deployment");
  read_common(reader, config);
  return config;
}

ModelTarget resolve_model(const ResponsesConfig &config, const std::optional<std::string> &model) {
  ModelTarget target;
  target.model = model && !model->empty() ? *model : config.default_model;
  if (config.flavor == Flavor::openai) {
    target.api_model = target.model;
    return target;
  }
  if (auto it = config.deployment_mapping.find(target.model); it != config.deployment_mapping.end())
    target.api_model = it->second;
  else if (config.default_deployment)
    target.api_model = *config.default_deployment;
  else
    target.api_model = target.model;
  if (target.model.empty()) target.model = target.api_model;
  return target;
}

}  // namespace openai_responses

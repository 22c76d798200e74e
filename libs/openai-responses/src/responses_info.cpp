#include "responses_info.hpp"

#include "amplifier/provider/http_config.hpp"

#include <array>
#include <string_view>

namespace openai_responses {

namespace json = boost::json;
using amplifier::provider::config_field;

namespace {

struct ModelFamily {
  std::string_view id_prefix;
  std::int64_t context_window;
  std::int64_t max_output_tokens;
  bool reasoning;
};

// Limits by model family (OpenAI's model pages); the first matching prefix wins.
constexpr std::array kFamilies = {
    ModelFamily{"gpt-5", 400000, 128000, true},      ModelFamily{"gpt-4.1", 1047576, 32768, false},
    ModelFamily{"gpt-4o", 128000, 16384, false},     ModelFamily{"o4-mini", 200000, 100000, true},
    ModelFamily{"o3", 200000, 100000, true},         ModelFamily{"o1", 200000, 100000, true},
    ModelFamily{"codex-mini", 200000, 100000, true}, ModelFamily{"gpt-oss", 131072, 131072, true},
};
constexpr ModelFamily kUnknownFamily{"", 128000, 16384, false};

const ModelFamily &family_of(std::string_view id) {
  for (const auto &family : kFamilies)
    if (id.substr(0, family.id_prefix.size()) == family.id_prefix) return family;
  return kUnknownFamily;
}

json::array credential_fields(const ResponsesConfig &config) {
  json::array fields;
  if (config.flavor == Flavor::openai) {
    json::object api_key = config_field("api_key", "API key", "secret", "Your OpenAI API key");
    api_key["env_var"] = kOpenAiKeyEnv;
    api_key["required"] = true;
    json::object base_url =
        config_field("base_url", "Base URL", "text", "API endpoint, including /v1",
                     json::string(kOpenAiDefaultBaseUrl));
    base_url["env_var"] = kOpenAiBaseUrlEnv;
    fields.push_back(std::move(api_key));
    fields.push_back(std::move(base_url));
    fields.push_back(config_field("organization", "Organization", "text", "OpenAI-Organization"));
    fields.push_back(config_field("project", "Project", "text", "OpenAI-Project"));
    return fields;
  }
  json::object endpoint =
      config_field("azure_endpoint", "Endpoint", "text", "https://<resource>.openai.azure.com");
  endpoint["env_var"] = kAzureEndpointEnv;
  endpoint["required"] = true;
  json::object api_key =
      config_field("api_key", "API key", "secret", "The resource's key (or use azure_ad_token)");
  api_key["env_var"] = kAzureKeyEnv;
  json::object token = config_field("azure_ad_token", "Entra ID token", "secret",
                                    "A Microsoft Entra ID bearer token (or use api_key)");
  token["env_var"] = kAzureAdTokenEnv;
  json::object version = config_field("api_version", "API version", "text",
                                      "Unset for the v1 API; a dated version selects the "
                                      "deployments path");
  version["env_var"] = kAzureApiVersionEnv;
  fields.push_back(std::move(endpoint));
  fields.push_back(std::move(api_key));
  fields.push_back(std::move(token));
  fields.push_back(std::move(version));
  fields.push_back(
      config_field("deployment_mapping", "Deployments", "text", "Model name -> deployment name"));
  fields.push_back(config_field("default_deployment", "Default deployment", "text",
                                "Deployment used when no mapping matches"));
  return fields;
}

json::array config_fields(const ResponsesConfig &config) {
  json::array fields = credential_fields(config);
  fields.push_back(config_field("default_model", "Model", "text",
                                "Model used when a request names none",
                                json::string(config.default_model)));
  fields.push_back(config_field("max_tokens", "Max output tokens", "text",
                                "Sent as max_output_tokens when a request sets no limit"));
  fields.push_back(config_field("temperature", "Temperature", "text", "Sampling temperature"));
  json::object effort = config_field("reasoning_effort", "Reasoning effort", "choice",
                                     "How much the model reasons before answering");
  effort["choices"] = json::array{"none", "minimal", "low", "medium", "high", "xhigh"};
  fields.push_back(std::move(effort));
  json::object summary = config_field("reasoning_summary", "Reasoning summary", "choice",
                                      "The summary of its reasoning the model returns",
                                      json::string(config.reasoning_summary));
  summary["choices"] = json::array{"auto", "concise", "detailed", "none"};
  fields.push_back(std::move(summary));
  fields.push_back(config_field("prompt_cache_key", "Prompt cache key", "text",
                                "Groups requests that share a prefix in OpenAI's prompt cache"));
  fields.push_back(config_field("prompt_cache_retention", "Prompt cache retention", "text",
                                "in_memory or 24h"));
  fields.push_back(config_field("store", "Store responses", "boolean",
                                "Let the vendor keep responses (off: reasoning travels encrypted)",
                                config.store));
  fields.push_back(config_field("max_continuations", "Max continuations", "text",
                                "Times a response cut off by max_output_tokens is continued",
                                config.max_continuations));
  amplifier::provider::append_http_config_fields(config, fields);
  return fields;
}

}  // namespace

json::object provider_info(const ResponsesConfig &config) {
  const ModelFamily &family = family_of(config.default_model);
  json::object defaults{{"model", config.default_model},
                        {"context_window", family.context_window},
                        {"max_output_tokens", family.max_output_tokens},
                        {"timeout", static_cast<double>(config.timeout.count()) / 1000.0},
                        {"store", config.store}};
  if (config.max_tokens) defaults["max_tokens"] = *config.max_tokens;
  if (config.temperature) defaults["temperature"] = *config.temperature;
  json::array env_vars;
  if (config.flavor == Flavor::openai) {
    env_vars.push_back(json::string(kOpenAiKeyEnv));
  } else {
    env_vars = {json::string(kAzureKeyEnv), json::string(kAzureAdTokenEnv),
                json::string(kAzureEndpointEnv)};
  }
  return json::object{
      {"id", config.module_id},
      {"display_name", config.display_name},
      {"credential_env_vars", std::move(env_vars)},
      {"capabilities",
       {{"streaming", true},
        {"tools", true},
        {"parallel_tool_calls", true},
        {"thinking", true},
        {"reasoning", true},
        {"vision", true},
        {"modalities", {{"input", json::array{"text", "image"}}, {"output", json::array{"text"}}}},
        {"response_format", json::array{"text", "json_object", "json_schema"}}}},
      {"defaults", std::move(defaults)},
      {"config_fields", config_fields(config)},
  };
}

void append_models(const json::object &page, json::array &models) {
  const json::value *data = page.if_contains("data");
  if (!data || !data->is_array()) return;
  for (const json::value &item : data->get_array()) {
    if (!item.is_object()) continue;
    const json::value *id = item.get_object().if_contains("id");
    if (!id || !id->is_string()) continue;
    const ModelFamily &family = family_of(id->get_string());
    json::array capabilities{"tools", "streaming", "vision"};
    if (family.reasoning) capabilities.push_back("reasoning");
    models.push_back(json::object{{"id", *id},
                                  {"display_name", *id},
                                  {"context_window", family.context_window},
                                  {"max_output_tokens", family.max_output_tokens},
                                  {"capabilities", std::move(capabilities)}});
  }
}

}  // namespace openai_responses

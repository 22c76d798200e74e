#include "gemini_config.hpp"

namespace gemini {

bool model_thinks(std::string_view model) {
  if (model.starts_with("models/")) model.remove_prefix(7);
  if (model.find("thinking") != std::string_view::npos) return true;
  if (!model.starts_with("gemini-")) return false;
  model.remove_prefix(7);
  // gemini-2.5-*, gemini-3*, and later majors; not 1.x, 2.0.
  const char major = model.empty() ? '0' : model[0];
  if (major >= '3' && major <= '9') return true;
  return model.starts_with("2.5");
}

namespace ms = amplifier::module_support;
namespace provider = amplifier::provider;

amplifier::transport::Headers gemini_headers(const GeminiConfig &config, bool with_body,
                                             std::string_view accept) {
  amplifier::transport::Headers headers = provider::json_headers(with_body, accept);
  if (!config.api_key.empty()) headers.set("x-goog-api-key", config.api_key);
  return headers;
}

GeminiConfig GeminiConfig::read(ms::ConfigReader &reader, const provider::EnvLookup &env) {
  GeminiConfig config;
  auto key = provider::string_or_env(reader, "api_key", kKeyEnv, env);
  if (!key) key = env(kKeyEnvFallback);
  config.api_key = key.value_or("");
  config.base_url = provider::checked_base_url(
      reader, "base_url", reader.get_string("base_url", std::string(kDefaultBaseUrl)));
  config.default_model = reader.get_string("default_model", std::string(kDefaultModel));
  if (config.default_model.empty()) throw reader.error("default_model", "must not be empty");
  if (reader.has("max_tokens"))
    config.max_tokens = reader.get_int("max_tokens", 8192, 1, 1'000'000);
  if (reader.has("temperature"))
    config.temperature = reader.get_number("temperature", 1.0, 0.0, 2.0);
  if (reader.has("thinking_budget"))
    config.thinking_budget = reader.get_int("thinking_budget", -1, -1, 1'000'000);
  if (reader.has("include_thoughts"))
    config.include_thoughts = reader.get_bool("include_thoughts", true);
  provider::read_http_config(reader, config);
  reader.get_int("priority", 100);  // read by the kernel; listed so it is not "unknown"
  return config;
}

}  // namespace gemini

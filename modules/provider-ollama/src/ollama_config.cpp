#include "ollama_config.hpp"

namespace ollama {

namespace ms = amplifier::module_support;
namespace provider = amplifier::provider;

std::string normalized_host(std::string_view host) {
  std::string url(host);
  while (!url.empty() && url.back() == '/') url.pop_back();
  if (url.find("://") == std::string::npos) {
    url = "http://" + url;
    // A bare host gets Ollama's port; an address with a port keeps it.
    const std::size_t authority = url.find("://") + 3;
    if (url.find(':', authority) == std::string::npos) url += ":11434";
  }
  return url;
}

amplifier::transport::Headers ollama_headers(const OllamaConfig &config, bool with_body,
                                             std::string_view accept) {
  amplifier::transport::Headers headers = provider::json_headers(with_body, accept);
  if (!config.api_key.empty()) headers.set("authorization", "Bearer " + config.api_key);
  return headers;
}

OllamaConfig OllamaConfig::read(ms::ConfigReader &reader, const provider::EnvLookup &env) {
  OllamaConfig config;
  const std::string host =
      provider::string_or_env(reader, "host", kHostEnv, env).value_or(std::string(kDefaultHost));
  config.host = provider::checked_base_url(reader, "host", normalized_host(host));
  config.api_key = reader.get_string("api_key", "");
  config.default_model = reader.get_string("default_model", "");
  config.enable_thinking = reader.get_bool("enable_thinking", false);
  if (const boost::json::value *keep_alive = reader.get_value("keep_alive"))
    config.keep_alive = *keep_alive;
  if (auto options = reader.get_object("options")) config.options = options->object();
  config.auto_pull = reader.get_bool("auto_pull", false);
  provider::read_http_config(reader, config);
  reader.get_int("priority", 100);  // read by the kernel; listed so it is not "unknown"
  return config;
}

}  // namespace ollama

// provider-ollama's configuration, read once at mount.
#pragma once
#include "amplifier/module_support/config_reader.hpp"
#include "amplifier/provider/http_config.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <string>
#include <string_view>

namespace ollama {

inline constexpr std::string_view kModuleId = "provider-ollama";
inline constexpr std::string_view kHostEnv = "OLLAMA_HOST";
inline constexpr std::string_view kDefaultHost = "http://localhost:11434";
// Where an Ollama thinking block says its text goes back (see ThinkingBlock).
inline constexpr std::string_view kReasoningField = "thinking";

struct OllamaConfig : amplifier::provider::HttpConfig {
  std::string host;     // http://host:port, no trailing slash
  std::string api_key;  // optional: a Bearer token for hosted Ollama
  std::string default_model;
  bool enable_thinking = false;   // sends think: true
  boost::json::value keep_alive;  // passed through when set ("5m", 0, -1)
  boost::json::object options;    // passed through (num_ctx, temperature, ...)
  bool auto_pull = false;         // a missing model is pulled first, with progress events

  // OLLAMA_HOST as Ollama itself reads it: "0.0.0.0:11434" or "example.com" get a scheme (and
  // the default port). Throws ConfigError naming the first bad value.
  static OllamaConfig read(amplifier::module_support::ConfigReader &reader,
                           const amplifier::provider::EnvLookup &env);
};

// The headers of a request to the server: JSON (content-type when a body goes, `accept`), and
// the key as a Bearer token for hosted Ollama.
amplifier::transport::Headers ollama_headers(const OllamaConfig &config, bool with_body,
                                             std::string_view accept);

// "host", "host:port" or a URL -> a base URL with a scheme and a port.
std::string normalized_host(std::string_view host);

}  // namespace ollama

// provider-chat-completions' configuration, read once at mount.
#pragma once
#include "amplifier/module_support/config_reader.hpp"
#include "amplifier/provider/http_config.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace chat_completions {

inline constexpr std::string_view kModuleId = "provider-chat-completions";

struct ChatConfig : amplifier::provider::HttpConfig {
  std::string base_url;  // the server's API root, including /v1 (as in the OpenAI SDK)
  std::string api_key;   // optional: sent as a Bearer token when set
  std::string default_model;
  std::optional<std::int64_t> max_tokens;
  std::optional<double> temperature;
  // Sent with every request (after ours, so they may override content-type but never the
  // key: authorization set here is refused).
  std::vector<std::pair<std::string, std::string>> extra_headers;
  boost::json::object extra_body;  // merged into every request body, last

  // Throws ConfigError naming the first bad value.
  static ChatConfig read(amplifier::module_support::ConfigReader &reader);
};

// The headers of a request to the server: JSON (content-type when a body goes, `accept`), the
// key as a Bearer token when there is one, then extra_headers.
amplifier::transport::Headers chat_headers(const ChatConfig &config, bool with_body,
                                           std::string_view accept);

}  // namespace chat_completions

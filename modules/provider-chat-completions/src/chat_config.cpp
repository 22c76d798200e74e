#include "chat_config.hpp"

#include "amplifier/transport/headers.hpp"

namespace chat_completions {

namespace ms = amplifier::module_support;
namespace provider = amplifier::provider;

namespace {

constexpr std::int64_t kMaxOutputTokens = 1'000'000;

void read_extra_headers(ms::ConfigReader &reader, ChatConfig &config) {
  auto headers = reader.get_object("extra_headers");
  if (!headers) return;
  for (const auto &field : headers->object()) {
    const std::string name(field.key());
    if (amplifier::transport::iequals(name, "authorization"))
      throw headers->error(name, "cannot be set here: configure api_key instead");
    const std::string value = headers->get_string(name, "");
    config.extra_headers.emplace_back(name, value);
  }
}

}  // namespace

amplifier::transport::Headers chat_headers(const ChatConfig &config, bool with_body,
                                           std::string_view accept) {
  amplifier::transport::Headers headers = provider::json_headers(with_body, accept);
  if (!config.api_key.empty()) headers.set("authorization", "Bearer " + config.api_key);
  for (const auto &[name, value] : config.extra_headers) headers.set(name, value);
  return headers;
}

ChatConfig ChatConfig::read(ms::ConfigReader &reader) {
  ChatConfig config;
  const std::string base_url = reader.get_string("base_url", "");
  if (base_url.empty())
    throw reader.error("base_url",
                       "is required: the server's API root, including /v1 "
                       "(e.g. http://localhost:8000/v1)");
  config.base_url = provider::checked_base_url(reader, "base_url", base_url);
  config.api_key = reader.get_string("api_key", "");
  config.default_model = reader.get_string("default_model", "");
  if (reader.has("max_tokens"))
    config.max_tokens = reader.get_int("max_tokens", 4096, 1, kMaxOutputTokens);
  if (reader.has("temperature"))
    config.temperature = reader.get_number("temperature", 1.0, 0.0, 2.0);
  read_extra_headers(reader, config);
  if (auto body = reader.get_object("extra_body")) config.extra_body = body->object();
  provider::read_http_config(reader, config);
  reader.get_int("priority", 100);  // read by the kernel; listed so it is not "unknown"
  return config;
}

}  // namespace chat_completions

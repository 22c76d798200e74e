// provider-anthropic: the Anthropic Messages API (POST {base_url}/v1/messages) as a provider
// module, streaming by default, through the shared HTTP/SSE transport.
#include "anthropic_config.hpp"
#include "messages_client.hpp"
#include "provider_info.hpp"

#include "amplifier/module_support/config_reader.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json/serialize.hpp>

#include <memory>

namespace provider_anthropic {
namespace {

namespace json = boost::json;

std::shared_ptr<const AnthropicConfig> read_config(const amp::sdk::Host &host,
                                                   std::string_view config_json) {
  auto config = amplifier::provider::read_module_config<AnthropicConfig>(
      host, kModuleId, config_json,
      [](auto &reader) { return AnthropicConfig::read(reader, process_env); });
  if (config->api_key.empty())
    host.info(std::string(kModuleId) + ": no API key configured (set " + std::string(kApiKeyEnv) +
              "); completions will fail with an authentication error");
  return config;
}

// THREADS: complete/cancel/list_models run concurrently on host threads; MessagesClient is
// thread-safe. The SDK serialises construction and destruction against everything else.
class AnthropicProvider final : public amp::sdk::ProviderModule {
 public:
  AnthropicProvider(amp::sdk::Host host, std::string_view config_json)
      : ProviderModule(host), config_(read_config(host, config_json)), client_(host, config_) {}

  std::string info() override { return json::serialize(provider_info(*config_)); }
  std::string list_models() override { return json::serialize(client_.list_models()); }
  void complete(amp_call_id call, std::string_view request_json) override {
    client_.start(call, request_json);
  }
  void cancel(amp_call_id call, amp_cancel_level level) override { client_.cancel(call, level); }

 private:
  std::shared_ptr<const AnthropicConfig> config_;
  MessagesClient client_;
};

}  // namespace
}  // namespace provider_anthropic

AMP_DEFINE_MODULE(provider_anthropic::AnthropicProvider, "provider-anthropic", "0.1.0",
                  "Anthropic Messages API: streaming, tools, extended thinking, prompt caching");

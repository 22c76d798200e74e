// provider-chat-completions as a provider module: config at mount, completions on the shared
// call table, list_models through GET {base_url}/models.
//
// THREADS: complete/cancel/list_models run concurrently on host threads; the call table is
// thread-safe. The SDK serialises construction and destruction against everything else.
#pragma once
#include "chat_config.hpp"

#include "amplifier/provider/call_table.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json/object.hpp>

#include <memory>
#include <string>
#include <string_view>

namespace chat_completions {

// ProviderInfo: capabilities and every config field (exposed for tests).
boost::json::object provider_info(const ChatConfig &config);

class ChatProvider final : public amp::sdk::ProviderModule {
 public:
  ChatProvider(amp::sdk::Host host, std::string_view config_json);

  std::string info() override;
  // GET {base_url}/models; blocks the calling thread (never the io thread).
  std::string list_models() override;
  // Returns at once; the call reports through the host. A request that cannot be sent
  // (invalid JSON, no model) ends at once with its error.
  void complete(amp_call_id call, std::string_view request_json) override;
  void cancel(amp_call_id call, amp_cancel_level level) override;

 private:
  std::shared_ptr<const ChatConfig> config_;
  // Last: destroyed first, it cancels and waits for the calls still in flight.
  amplifier::provider::CallTable calls_;
};

}  // namespace chat_completions

// The calls of one provider-anthropic instance: requests are mapped here and run as
// MessageCalls in the shared CallTable (one I/O thread per core for every instance, no thread
// per call or per session).
#pragma once
#include "anthropic_config.hpp"

#include "amplifier/provider/call_table.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json/array.hpp>

#include <memory>
#include <string_view>

namespace provider_anthropic {

class MessagesClient {
 public:
  MessagesClient(amp::sdk::Host host, std::shared_ptr<const AnthropicConfig> config);

  // Returns at once; the call reports through the host. A request that cannot be sent (invalid
  // JSON, no API key) ends at once with its error.
  void start(amp_call_id call, std::string_view request_json);
  // An immediate cancel aborts the exchange; a graceful one lets the completion finish.
  void cancel(amp_call_id call, amp_cancel_level level) { calls_.cancel(call, level); }

  // GET /v1/models, every page; blocks the calling thread (never the io thread).
  boost::json::array list_models();

 private:
  amp::sdk::Host host_;
  std::shared_ptr<const AnthropicConfig> config_;
  // Last: destroyed first, it cancels and waits for the calls still in flight.
  amplifier::provider::CallTable calls_;
};

}  // namespace provider_anthropic

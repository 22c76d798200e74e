// The provider module both provider-openai and provider-azure-openai are: one implementation of
// the Responses API, told apart by its Flavor (endpoint, authentication, config keys).
//
// THREADS: complete/cancel/list_models run concurrently on host threads; the call table is
// thread-safe. The SDK serialises construction and destruction against everything else.
#pragma once
#include "responses_config.hpp"

#include "amplifier/provider/call_table.hpp"
#include "amplifier_sdk.hpp"

#include <memory>
#include <string>
#include <string_view>

namespace openai_responses {

class ResponsesProvider : public amp::sdk::ProviderModule {
 public:
  ResponsesProvider(amp::sdk::Host host, std::string_view config_json, Flavor flavor);

  std::string info() override;
  // GET /models; blocks the calling thread (never the io thread).
  std::string list_models() override;
  // Returns at once; the call reports through the host. A request that cannot be sent
  // (invalid JSON, no credentials) ends at once with its error.
  void complete(amp_call_id call, std::string_view request_json) override;
  void cancel(amp_call_id call, amp_cancel_level level) override;

 private:
  std::shared_ptr<const ResponsesConfig> config_;
  // Last: destroyed first, it cancels and waits for the calls still in flight.
  amplifier::provider::CallTable calls_;
};

}  // namespace openai_responses

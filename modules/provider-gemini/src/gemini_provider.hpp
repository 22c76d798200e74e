// provider-gemini as a provider module: config at mount, completions on the shared call table,
// list_models through GET /v1beta/models.
//
// THREADS: complete/cancel/list_models run concurrently on host threads; the call table is
// thread-safe.
#pragma once
#include "gemini_config.hpp"

#include "amplifier/provider/call_table.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json/object.hpp>

#include <memory>
#include <string>
#include <string_view>

namespace gemini {

boost::json::object provider_info(const GeminiConfig &config);

class GeminiProvider final : public amp::sdk::ProviderModule {
 public:
  GeminiProvider(amp::sdk::Host host, std::string_view config_json);

  std::string info() override;
  std::string list_models() override;
  void complete(amp_call_id call, std::string_view request_json) override;
  void cancel(amp_call_id call, amp_cancel_level level) override;

 private:
  std::shared_ptr<const GeminiConfig> config_;
  // Last: destroyed first, it cancels and waits for the calls still in flight.
  amplifier::provider::CallTable calls_;
};

}  // namespace gemini

// One completion: the mapped request, its HTTP exchange (retries included) and the
// translation of what comes back into live stream events and exactly one terminal event. The
// exchange, its cancellation and the reports are provider-core's HttpProviderCall.
//
// THREADS: constructed and started on a host thread; every transport callback runs on the
// client's io thread, one at a time; cancel() may come from any thread.
#pragma once
#include "anthropic_config.hpp"
#include "request_mapping.hpp"
#include "stream_mapping.hpp"

#include "amplifier/provider/http_call.hpp"

#include <memory>
#include <optional>
#include <string>

namespace provider_anthropic {

class MessageCall final : public amplifier::provider::HttpProviderCall {
 public:
  using DoneFn = amplifier::provider::CallTable::DoneFn;

  MessageCall(amp::sdk::Host host, amp_call_id id, std::shared_ptr<const AnthropicConfig> config,
              MappedRequest mapped, std::optional<double> request_timeout_seconds);

  // Announces the request (provider:tool_sequence_repaired when the conversation was repaired,
  // llm:request), then starts the exchange on `client`. `on_done` runs on the io thread right
  // after the terminal event has been reported.
  void start(amplifier::transport::HttpClient &client, DoneFn on_done);

 private:
  void on_head() override;
  void on_event(const amplifier::transport::SseEvent &event,
                amplifier::transport::CallControl &control) override;
  void on_complete(amplifier::transport::CallResult result) override;
  amplifier::ChatResponse whole_response(const std::string &body);
  void finish_with(amplifier::ChatResponse response, int status);
  StreamTranslator &new_translator();
  amplifier::transport::ErrorMappingOptions error_options() const override;
  void refine_error(amplifier::KernelError &error,
                    const amplifier::transport::Headers *headers) const override;

  const std::shared_ptr<const AnthropicConfig> config_;
  const MappedRequest mapped_;
  const std::optional<double> request_timeout_seconds_;

  // io thread only:
  std::optional<StreamTranslator> translator_;  // one per attempt
};

}  // namespace provider_anthropic

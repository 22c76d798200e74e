// One completion: the mapped request, its HTTP exchange (retries included) and the
// translation of what comes back into live stream events and exactly one terminal event.
//
// THREADS: constructed and started on a host thread; every transport callback runs on the
// client's io thread, one at a time; cancel() may come from any thread.
#pragma once
#include "anthropic_config.hpp"
#include "request_mapping.hpp"
#include "stream_mapping.hpp"

#include "amplifier/provider/call_table.hpp"
#include "amplifier/transport/call.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json/array.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace provider_anthropic {

class MessageCall final : public amplifier::provider::ProviderCall,
                          public std::enable_shared_from_this<MessageCall> {
 public:
  using DoneFn = amplifier::provider::CallTable::DoneFn;

  MessageCall(amp::sdk::Host host, amp_call_id id, std::shared_ptr<const AnthropicConfig> config,
              MappedRequest mapped, std::optional<double> request_timeout_seconds);

  amp_call_id id() const noexcept { return id_; }

  // Announces the request (provider:tool_sequence_repaired when the conversation was repaired,
  // llm:request), then starts the exchange on `client`. `on_done` runs on the io thread right
  // after the terminal event has been reported.
  void start(amplifier::transport::HttpClient &client, DoneFn on_done);

  // Aborts the exchange at once; the call then ends with a `cancelled` terminal event.
  void cancel() override;

 private:
  amplifier::transport::CallSpec spec() const;
  void on_head();
  void on_event(const amplifier::transport::SseEvent &event,
                amplifier::transport::CallControl &control);
  void on_retry(const amplifier::transport::RetryNotice &notice);
  void on_complete(amplifier::transport::CallResult result);
  amplifier::ChatResponse whole_response(const std::string &body);
  void report_request() const;
  void report_response(int status, const amplifier::ChatResponse *response,
                       const amplifier::KernelError *error) const;
  void finish_ok(amplifier::ChatResponse response, int status);
  void finish_error(amplifier::KernelError error, int status);
  void emit(std::string_view event, const boost::json::object &payload) const;
  StreamTranslator &new_translator();

  const amp::sdk::Host host_;
  const amp_call_id id_;
  const std::shared_ptr<const AnthropicConfig> config_;
  const MappedRequest mapped_;
  const std::optional<double> request_timeout_seconds_;
  const std::string url_;
  const amplifier::transport::Headers request_headers_;
  DoneFn on_done_;
  std::chrono::steady_clock::time_point started_at_;

  // io thread only:
  std::optional<StreamTranslator> translator_;  // one per attempt
  amplifier::transport::Headers response_headers_;
  boost::json::array raw_events_;  // config.raw: what the stream carried, for llm:response

  std::mutex cancel_mutex_;  // guards the two fields below
  amplifier::transport::CancelHandle handle_;
  bool cancel_requested_ = false;
};

}  // namespace provider_anthropic

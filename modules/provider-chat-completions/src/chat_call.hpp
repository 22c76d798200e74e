// One completion on a Chat Completions server: the mapped request, its HTTP exchange (retries
// included) and the translation of the chunks into live stream events and one terminal event.
// A server that refuses a field it does not know (stream_options, response_format, ...) with
// a 400 naming it is asked once more without that field, and the response records the
// degradation. The exchange, its cancellation and the reports are HttpProviderCall's.
//
// THREADS: constructed and started on a host thread; every transport callback runs on the
// client's io thread, one at a time; cancel() may come from any thread.
#pragma once
#include "chat_config.hpp"
#include "chat_request.hpp"
#include "chat_stream.hpp"

#include "amplifier/provider/http_call.hpp"

#include <memory>
#include <optional>
#include <string>

namespace chat_completions {

class ChatCall final : public amplifier::provider::HttpProviderCall {
 public:
  ChatCall(amp::sdk::Host host, amp_call_id id, std::shared_ptr<const ChatConfig> config,
           MappedChat mapped, std::optional<double> request_timeout_seconds);

  void start(amplifier::transport::HttpClient &client,
             amplifier::provider::CallTable::DoneFn on_done);

 private:
  amplifier::transport::CallSpec spec() const;
  ChatTranslator &new_translator();
  void on_head() override;
  void on_event(const amplifier::transport::SseEvent &event,
                amplifier::transport::CallControl &control) override;
  void on_complete(amplifier::transport::CallResult result) override;
  // The optional field a 400 says the server refused, when the body has it and it was not
  // dropped before; empty otherwise.
  std::string refused_field(const amplifier::KernelError &error) const;
  amplifier::ChatResponse whole_response(const std::string &body);
  void finish_with(amplifier::ChatResponse response, int status);

  const std::shared_ptr<const ChatConfig> config_;
  MappedChat mapped_;
  const std::optional<double> request_timeout_seconds_;
  amplifier::transport::HttpClient *client_ = nullptr;

  // io thread only:
  std::optional<ChatTranslator> translator_;  // one per attempt
};

}  // namespace chat_completions

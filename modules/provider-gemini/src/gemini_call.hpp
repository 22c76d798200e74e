// One completion on the Gemini API: the mapped request, its HTTP exchange (retries included;
// RetryInfo.retryDelay honoured) and the translation of the chunks into live stream events
// and one terminal event. The exchange, its cancellation and the reports are HttpProviderCall's.
//
// THREADS: constructed and started on a host thread; every transport callback runs on the
// client's io thread, one at a time; cancel() may come from any thread.
#pragma once
#include "gemini_config.hpp"
#include "gemini_request.hpp"
#include "gemini_stream.hpp"

#include "amplifier/provider/http_call.hpp"

#include <memory>
#include <optional>
#include <string>

namespace gemini {

// POST .../v1beta/models/{model}:streamGenerateContent?alt=sse, or :generateContent.
std::string generate_url(const GeminiConfig &config, std::string_view model, bool stream);

// A Gemini error made exact: an invalid API key (ErrorInfo reason API_KEY_INVALID) is
// `authentication`, and the key never appears in the message.
void refine_error(const GeminiConfig &config, amplifier::KernelError &error);

class GeminiCall final : public amplifier::provider::HttpProviderCall {
 public:
  GeminiCall(amp::sdk::Host host, amp_call_id id, std::shared_ptr<const GeminiConfig> config,
             MappedRequest mapped, std::optional<double> request_timeout_seconds);

  void start(amplifier::transport::HttpClient &client,
             amplifier::provider::CallTable::DoneFn on_done);

 private:
  GeminiTranslator &new_translator();
  void refine_error(amplifier::KernelError &error,
                    const amplifier::transport::Headers *headers) const override;
  void on_head() override;
  void on_event(const amplifier::transport::SseEvent &event,
                amplifier::transport::CallControl &control) override;
  void on_complete(amplifier::transport::CallResult result) override;

  const std::shared_ptr<const GeminiConfig> config_;
  const MappedRequest mapped_;
  const std::optional<double> request_timeout_seconds_;

  // io thread only:
  std::optional<GeminiTranslator> translator_;  // one per attempt
};

}  // namespace gemini

// One completion on Ollama's /api/chat: the mapped request, its HTTP exchange (retries
// included) and the translation of the lines into live stream events and one terminal event.
// With auto_pull, a model the server does not have is pulled first (POST /api/pull, its
// progress reported as provider:model_pull events), then the chat is sent again. The
// exchange, its cancellation and the reports are HttpProviderCall's.
//
// THREADS: constructed and started on a host thread; every transport callback runs on the
// client's io thread, one at a time; cancel() may come from any thread.
#pragma once
#include "ollama_config.hpp"
#include "ollama_request.hpp"
#include "ollama_stream.hpp"

#include "amplifier/provider/http_call.hpp"

#include <memory>
#include <optional>
#include <string>

namespace ollama {

class OllamaCall final : public amplifier::provider::HttpProviderCall {
 public:
  OllamaCall(amp::sdk::Host host, amp_call_id id, std::shared_ptr<const OllamaConfig> config,
             MappedChat mapped, std::optional<double> request_timeout_seconds);

  void start(amplifier::transport::HttpClient &client,
             amplifier::provider::CallTable::DoneFn on_done);

 private:
  amplifier::transport::CallSpec chat_spec() const;
  amplifier::transport::CallSpec pull_spec() const;
  OllamaTranslator &new_translator();
  void on_head() override;
  void on_line(std::string_view line, amplifier::transport::CallControl &control) override;
  void on_complete(amplifier::transport::CallResult result) override;
  void pull_progress(std::string_view line);
  bool missing_model(const amplifier::KernelError &error) const;

  const std::shared_ptr<const OllamaConfig> config_;
  const MappedChat mapped_;
  const std::optional<double> request_timeout_seconds_;
  amplifier::transport::HttpClient *client_ = nullptr;

  // io thread only:
  std::optional<OllamaTranslator> translator_;  // one per attempt
  bool pulling_ = false;
  bool pulled_ = false;
  std::string pull_status_;
  int pull_percent_ = -1;
};

}  // namespace ollama

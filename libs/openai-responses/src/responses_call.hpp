// One completion on the Responses API: the mapped request, its HTTP exchanges (retries
// included, and the automatic continuations of a response cut off by max_output_tokens) and the
// translation of what comes back into live stream events and exactly one terminal event. The
// exchange, its cancellation and the reports are provider-core's HttpProviderCall.
//
// THREADS: constructed and started on a host thread; every transport callback runs on the
// client's io thread, one at a time; cancel() may come from any thread.
#pragma once
#include "responses_config.hpp"
#include "responses_request.hpp"
#include "responses_stream.hpp"

#include "amplifier/provider/http_call.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace openai_responses {

class ResponsesCall final : public amplifier::provider::HttpProviderCall {
 public:
  ResponsesCall(amp::sdk::Host host, amp_call_id id, std::shared_ptr<const ResponsesConfig> config,
                amplifier::ChatRequest request);

  // Announces the request (repairs, llm:request), then starts the first exchange on `client`.
  // `on_done` runs on the io thread right after the terminal event has been reported.
  void start(amplifier::transport::HttpClient &client,
             amplifier::provider::CallTable::DoneFn on_done);

 private:
  ResponsesCall(amp::sdk::Host host, amp_call_id id, std::shared_ptr<const ResponsesConfig> config,
                amplifier::ChatRequest &&request, MappedRequest mapped);

  amplifier::transport::CallSpec spec() const;
  ResponsesTranslator &new_translator();
  void refine_error(amplifier::KernelError &error,
                    const amplifier::transport::Headers *headers) const override;
  void on_head() override;
  void on_event(const amplifier::transport::SseEvent &event,
                amplifier::transport::CallControl &control) override;
  void on_complete(amplifier::transport::CallResult result) override;
  RoundResult whole_response(const std::string &body);
  // A finished round: continue it (incomplete for max_output_tokens, no tool calls, rounds
  // left) or finish the call.
  void round_finished(RoundResult round, int status);
  bool continues(const RoundResult &round) const;
  void continue_from_stored(const std::string &response_id);
  void continue_with_output_so_far();
  void finish_with(RoundResult last, int status);

  const std::shared_ptr<const ResponsesConfig> config_;
  const amplifier::ChatRequest request_;  // kept for continuations, which re-map it
  MappedRequest mapped_;
  amplifier::transport::HttpClient *client_ = nullptr;

  // io thread only:
  std::optional<ResponsesTranslator> translator_;  // one per attempt
  std::size_t first_index_ = 0;                    // where this round's blocks start
  std::vector<amplifier::ContentBlock> content_;   // the blocks of the rounds before
  std::optional<amplifier::Usage> usage_;          // their usage, summed
  int continuations_ = 0;
};

}  // namespace openai_responses

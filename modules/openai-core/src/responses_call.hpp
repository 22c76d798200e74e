// One completion on the Responses API: the mapped request, its HTTP exchanges (retries
// included, and the automatic continuations of a response cut off by max_output_tokens) and the
// translation of what comes back into live stream events and exactly one terminal event.
//
// THREADS: constructed and started on a host thread; every transport callback runs on the
// client's io thread, one at a time; cancel() may come from any thread.
#pragma once
#include "responses_request.hpp"
#include "responses_config.hpp"
#include "responses_stream.hpp"

#include "amplifier/provider/call_table.hpp"
#include "amplifier/transport/call.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json/array.hpp>

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace openai_responses {

class ResponsesCall final : public amplifier::provider::ProviderCall,
                            public std::enable_shared_from_this<ResponsesCall> {
 public:
  ResponsesCall(amp::sdk::Host host, amp_call_id id, std::shared_ptr<const ResponsesConfig> config,
                amplifier::ChatRequest request);

  // Announces the request (repairs, llm:request), then starts the first exchange on `client`.
  // `on_done` runs on the io thread right after the terminal event has been reported.
  void start(amplifier::transport::HttpClient &client,
             amplifier::provider::CallTable::DoneFn on_done);
  void cancel() override;

 private:
  void start_exchange();
  amplifier::transport::CallSpec spec() const;
  ResponsesTranslator &new_translator();
  void on_event(const amplifier::transport::SseEvent &event,
                amplifier::transport::CallControl &control);
  void on_retry(const amplifier::transport::RetryNotice &notice);
  void on_complete(amplifier::transport::CallResult result);
  RoundResult whole_response(const std::string &body);
  // A finished round: continue it (incomplete for max_output_tokens, no tool calls, rounds
  // left) or finish the call.
  void round_finished(RoundResult round, int status);
  bool continues(const RoundResult &round) const;
  void continue_from_stored(const std::string &response_id);
  void continue_with_output_so_far();
  void finish_ok(RoundResult last, int status);
  void finish_error(amplifier::KernelError error, int status);
  void report_request() const;
  void report_response(int status, const amplifier::ChatResponse *response,
                       const amplifier::KernelError *error) const;

  const amp::sdk::Host host_;
  const amp_call_id id_;
  const std::shared_ptr<const ResponsesConfig> config_;
  amplifier::ChatRequest request_;  // kept for continuations, which re-map it
  MappedRequest mapped_;
  std::string url_;
  amplifier::transport::Headers request_headers_;
  amplifier::provider::CallTable::DoneFn on_done_;
  amplifier::transport::HttpClient *client_ = nullptr;
  std::chrono::steady_clock::time_point started_at_;

  // io thread only:
  std::optional<ResponsesTranslator> translator_;  // one per attempt
  std::size_t first_index_ = 0;                    // where this round's blocks start
  std::vector<amplifier::ContentBlock> content_;   // the blocks of the rounds before
  std::optional<amplifier::Usage> usage_;          // their usage, summed
  int continuations_ = 0;
  amplifier::transport::Headers response_headers_;
  boost::json::array raw_events_;  // config.raw: what the streams carried, for llm:response

  std::mutex cancel_mutex_;  // guards the two fields below
  amplifier::transport::CancelHandle handle_;
  bool cancel_requested_ = false;
};

}  // namespace openai_responses

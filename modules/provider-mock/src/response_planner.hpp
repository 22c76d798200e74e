// Decides what one provider-mock call streams and how it ends, up front, when the call
// starts: the next scripted response, or the default behaviour when the script is exhausted.
// The result is a list of ready-to-send stream events plus the terminal payload, so the
// asynchronous delivery (call_streamer) is nothing but pacing.
#pragma once
#include "mock_config.hpp"

#include "amplifier/model.hpp"
#include "amplifier_plugin.h"

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace provider_mock {

// One step of a planned stream: a JSON event (block start or end, usage), or a delta, which
// goes to the host typed (ABI 1.2), with no JSON.
struct StreamStep {
  std::string event_json;  // empty for a delta
  std::uint32_t index = 0;
  amp_delta_kind kind = AMP_DELTA_TEXT;
  std::string text;        // a delta's text
  bool is_delta() const { return event_json.empty(); }
};

struct PlannedCall {
  std::chrono::milliseconds first_delay{0};
  std::vector<StreamStep> events;  // in order
  amp_status status = AMP_OK;
  std::string terminal_payload;     // ChatResponse JSON, or the error JSON
};

// The signature the mock gives a thinking text: deterministic, so a test can predict it.
std::string mock_signature(std::string_view thinking);

// Splits `text` into pieces of `chars_per_piece` code points, never inside a UTF-8 sequence.
std::vector<std::string_view> split_utf8(std::string_view text, std::size_t chars_per_piece);

// Roughly four characters per token, at least one token for non-empty text.
std::int64_t estimate_tokens(std::string_view text);

// THREADS: plan() may run on many threads at once (the host calls complete concurrently).
class ResponsePlanner {
 public:
  ResponsePlanner(MockConfig config, std::string provider_name);

  // Never throws for a bad request: an invalid ChatRequest becomes an invalid_request error.
  PlannedCall plan(amp_call_id call, std::string_view request_json);

  const MockConfig &config() const noexcept { return config_; }

 private:
  struct Content;
  Content scripted_content(std::size_t index, amp_call_id call) const;
  Content default_content(const amplifier::ChatRequest &request, amp_call_id call) const;
  PlannedCall render(const Content &content, std::string_view request_json) const;
  PlannedCall error_call(amplifier::KernelError error, std::chrono::milliseconds delay) const;

  // A request that alters or drops a signature this instance issued is refused, as Anthropic
  // refuses it (HTTP 400): that is what makes thinking fidelity testable with the mock.
  std::optional<std::string> signature_problem(const amplifier::ChatRequest &request) const;
  void remember_signature(std::string_view thinking, std::string_view signature);

  const MockConfig config_;
  const std::string provider_name_;
  // "call_mock_<random>_": call ids restart in every process, so a resumed conversation would
  // otherwise repeat tool-call ids, which real vendors reject.
  const std::string tool_call_id_prefix_;

  mutable std::mutex mutex_;  // guards the two fields below
  std::size_t next_response_ = 0;
  // thinking text -> every signature issued with it (a script may reuse a text)
  std::unordered_map<std::string, std::vector<std::string>> issued_signatures_;
};

}  // namespace provider_mock

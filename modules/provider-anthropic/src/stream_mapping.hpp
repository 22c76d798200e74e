// Anthropic Messages stream events -> the ABI's stream events, one at a time, as they arrive:
//   message_start            -> usage (input and cache counts), response id and model kept
//   content_block_start      -> content_block_start (text, thinking, redacted_thinking,
//                               tool_call; other Anthropic block types, e.g. server_tool_use,
//                               pass through whole, their streamed input included)
//   content_block_delta      -> content_block_delta: text_delta -> text, thinking_delta ->
//                               thinking, signature_delta -> signature, input_json_delta ->
//                               tool_input{partial_json}
//   content_block_stop       -> content_block_end carrying the complete unified block (tool
//                               input parsed here, once)
//   message_delta            -> usage (cumulative counts), stop_reason kept
//   message_stop             -> the stream is complete
//   ping, unknown types      -> ignored
//   error                    -> a typed KernelError (overloaded_error -> overloaded, ...)
// A non-streamed Message (stream: false) is replayed through the same steps, so both paths
// produce the same events and the same ChatResponse.
//
// The hot path: a content_block_delta is read without a DOM (amplifier::JsonFieldReader, no
// allocation once its buffers have grown) and goes out as a typed delta (ABI 1.2); each block's
// text is kept once, here, and the ChatResponse is built from it.
#pragma once
#include "amplifier/errors.hpp"
#include "amplifier/model.hpp"
#include "amplifier/stream.hpp"
#include "amplifier/json_fields.hpp"
#include "amplifier/provider/event_sink.hpp"
#include "amplifier_plugin.h"

#include <boost/json/object.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace provider_anthropic {

// Anthropic usage counts -> Usage, updating only the counts present (message_delta repeats
// them cumulatively). input_tokens stays Anthropic's uncached input; cache_read_tokens and
// cache_write_tokens come from cache_read_input_tokens / cache_creation_input_tokens;
// reasoning_tokens from output_tokens_details.thinking_tokens; total_tokens counts all of them.
void merge_anthropic_usage(const boost::json::object &anthropic_usage, amplifier::Usage &usage);

// The error mapping used for `event: error` (kept injectable so this file needs no transport).
using StreamErrorMapper = std::function<amplifier::KernelError(std::string_view payload)>;

class StreamTranslator {
 public:
  using EventSink = amplifier::provider::EventSink;
  using DeltaSink =
      std::function<void(std::uint32_t index, amp_delta_kind kind, std::string_view text)>;

  // `sink` receives every ABI stream event, in order, on the thread that feeds the translator;
  // `deltas`, when given, receives the deltas typed instead (with no JSON), in the same order
  // relative to the events. Without it the deltas come to `sink` as their JSON events.
  StreamTranslator(EventSink sink, StreamErrorMapper map_error, DeltaSink deltas = {});

  // One SSE event: `event_type` is its `event:` field (used when the data has no "type").
  // Throws amplifier::KernelException: the vendor's error for an error event, kind `stream`
  // for invalid JSON or an event that contradicts the stream so far, `invalid_tool_call` for
  // tool input that is not a JSON object.
  void on_sse_event(std::string_view event_type, std::string_view data);
  // One parsed event object (what on_sse_event parses to).
  void on_event(const boost::json::object &event);
  // A whole non-streamed Message body, replayed as its stream would have gone.
  void on_message(const boost::json::object &message);

  // True once message_stop arrived; the response is ready.
  bool complete() const noexcept { return complete_; }
  // True once any content block started (from then on a retry would repeat content).
  bool content_started() const noexcept { return next_index_ > 0; }

  // The assembled response: blocks in order, tool_calls, usage, finish_reason (Anthropic's
  // stop_reason) and metadata {provider, model, response_id, stop_sequence?, stop_details?}.
  // Throws KernelException (stream) when the stream is not complete.
  amplifier::ChatResponse take_response(std::string_view provider_id);

 private:
  enum class BlockKind { text, thinking, redacted_thinking, tool_call, passthrough };
  struct OpenBlock {
    BlockKind kind = BlockKind::text;
    std::size_t index = 0;  // the index in our events (dense, in start order)
    std::string text;       // text, thinking, or redacted data
    std::string signature;
    std::string partial_json;
    std::string id;
    std::string name;
    boost::json::object initial_input;
    boost::json::object raw;  // passthrough blocks
  };

  void emit(const boost::json::object &event);
  void emit_delta(std::size_t index, amp_delta_kind kind, std::string_view text);
  // A content_block_delta read straight from its text, or nullopt when it is some other event.
  bool fast_delta(std::string_view event_type, std::string_view data);
  void apply_delta(std::int64_t anthropic_index, std::string_view delta_type,
                   std::string_view payload);
  void message_start(const boost::json::object &event);
  void block_start(const boost::json::object &event);
  void block_delta(const boost::json::object &event);
  void block_stop(const boost::json::object &event);
  void message_delta(const boost::json::object &event);
  void message_stop();
  void emit_usage();
  OpenBlock &open_block(std::int64_t anthropic_index, std::string_view what);
  amplifier::ContentBlock finished_block(OpenBlock &block);

  // The fields of an SSE payload the hot path reads.
  struct DeltaFields {
    explicit DeltaFields(amplifier::JsonFieldReader &reader);
    amplifier::JsonFieldReader::Field type, index, delta_type, text, thinking,
        signature, partial_json;
  };

  EventSink sink_;
  StreamErrorMapper map_error_;
  DeltaSink deltas_;
  amplifier::JsonFieldReader reader_;
  DeltaFields fields_{reader_};
  std::map<std::int64_t, OpenBlock> open_;  // by Anthropic's index
  std::map<std::size_t, amplifier::ContentBlock> finished_;  // by our index, as they ended
  std::size_t next_index_ = 0;
  amplifier::Usage usage_;
  bool usage_seen_ = false;
  bool complete_ = false;
  std::string model_;
  std::string response_id_;
  std::optional<std::string> stop_reason_;
  boost::json::value stop_sequence_;
  boost::json::value stop_details_;
};

}  // namespace provider_anthropic

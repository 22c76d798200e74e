// Chat Completions chunks (SSE `data:` lines) -> the ABI's stream events, as they arrive:
//   delta.reasoning_content / delta.reasoning -> a thinking block (typed thinking deltas); the
//                                      block remembers which field it came in
//   delta.content                   -> a text block (typed text deltas)
//   delta.refusal                   -> a text block marked refusal
//   delta.tool_calls[i]             -> one tool_call block per index: id and name from the
//                                      first fragment, arguments as typed tool-input deltas
//   finish_reason, usage (the include_usage chunk, choices: [])  -> kept for the end
//   {"error": ...}                  -> a typed KernelError
//   data: [DONE]                    -> the end: open blocks end, the response is ready
// A thinking or text block ends when the other kind begins; tool calls end at the end. A
// stream without [DONE] never counts as finished. A whole (stream: false) completion is
// replayed through the same steps.
//
// Tool arguments that are not a JSON object never fail the call: the block gets input {} and
// the raw text in extra.arguments, the reason in extra.arguments_error (see ToolCallBlock).
#pragma once
#include "amplifier/errors.hpp"
#include "amplifier/model.hpp"
#include "amplifier_plugin.h"

#include "amplifier/provider/block_builder.hpp"
#include "amplifier/provider/chunk_parser.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace chat_completions {

using StreamErrorMapper = std::function<amplifier::KernelError(std::string_view payload)>;

class ChatTranslator {
 public:
  using EventSink = amplifier::provider::EventSink;
  using DeltaSink =
      std::function<void(std::uint32_t index, amp_delta_kind kind, std::string_view text)>;

  // `sink` receives the block starts and ends and the usage; `deltas` the typed deltas.
  ChatTranslator(EventSink sink, StreamErrorMapper map_error, DeltaSink deltas);
  ChatTranslator(const ChatTranslator &) = delete;
  ChatTranslator &operator=(const ChatTranslator &) = delete;

  // One SSE event's data. Throws amplifier::KernelException: the server's error for an error
  // chunk, kind `stream` for invalid JSON or data after [DONE].
  void on_sse_data(std::string_view data);
  // A whole non-streamed completion.
  void on_completion(const boost::json::object &completion);

  bool finished() const noexcept { return finished_; }
  bool content_started() const noexcept { return blocks_.content_started(); }

  // The response: content in block order, usage, finish_reason (stop | length | tool_calls |
  // content_filter), metadata {provider, model, id}. Throws KernelException (stream) when
  // the stream did not finish.
  amplifier::ChatResponse take_response(std::string_view provider);

 private:
  struct ToolCall {
    std::size_t index = 0;
    std::string id, name, arguments;
  };

  void on_chunk(const boost::json::object &chunk);
  void on_delta(const boost::json::object &delta);
  void tool_fragment(const boost::json::object &fragment, std::size_t position);
  void finish();

  EventSink sink_;
  StreamErrorMapper map_error_;
  amplifier::provider::ChunkParser parser_;  // most chunks parse without a heap allocation
  amplifier::provider::BlockBuilder blocks_;
  std::string reasoning_field_;                  // the field the open thinking came in
  bool refusal_ = false;                         // the open text is a refusal
  std::map<std::int64_t, ToolCall> tool_calls_;  // by the server's tool-call index

  std::string id_, model_, finish_reason_;
  std::optional<amplifier::Usage> usage_;
  bool finished_ = false;
};

// Chat Completions usage {prompt_tokens, completion_tokens, total_tokens,
// prompt_tokens_details.cached_tokens, completion_tokens_details.reasoning_tokens} -> Usage.
amplifier::Usage usage_from(const boost::json::object &usage);

}  // namespace chat_completions

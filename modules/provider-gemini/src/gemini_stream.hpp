// GenerateContentResponse chunks (each SSE event is a whole one, CRLF-framed) -> the ABI's
// stream events, as they arrive:
//   text parts              -> a text block (typed text deltas); consecutive unsigned parts
//                              are one block (the stream splits one part across chunks)
//   thought: true parts     -> a thinking block that says it goes back as a thought part
//   a part with a thoughtSignature -> ends its block with the signature on it: the signature
//                              goes back on exactly that part (text, thought or call)
//   functionCall parts      -> a tool_call block each, args whole; ids synthesized (call_<n>)
//                              unless the API gave one
//   usageMetadata           -> cumulative: the last value is kept, never summed
//   finishReason            -> STOP, MAX_TOKENS (length), SAFETY / RECITATION /
//                              PROHIBITED_CONTENT / BLOCKLIST / SPII (content_filter)
//   promptFeedback.blockReason -> a content_filter error, not an empty answer
//   {"error": ...}          -> a typed KernelError
// A stream that ends before a finishReason never counts as finished.
#pragma once
#include "amplifier/errors.hpp"
#include "amplifier/model.hpp"
#include "amplifier/provider/block_builder.hpp"
#include "amplifier/provider/chunk_parser.hpp"
#include "amplifier_plugin.h"

#include <boost/json/object.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace gemini {

using StreamErrorMapper = std::function<amplifier::KernelError(std::string_view payload)>;

class GeminiTranslator {
 public:
  using EventSink = amplifier::provider::EventSink;
  using DeltaSink =
      std::function<void(std::uint32_t index, amp_delta_kind kind, std::string_view text)>;

  GeminiTranslator(EventSink sink, StreamErrorMapper map_error, DeltaSink deltas);
  GeminiTranslator(const GeminiTranslator &) = delete;
  GeminiTranslator &operator=(const GeminiTranslator &) = delete;

  // One SSE event's data. Throws amplifier::KernelException (the API's error, a blocked
  // prompt as content_filter, kind `stream` for invalid JSON).
  void on_sse_data(std::string_view data);
  void on_chunk(const boost::json::object &chunk);

  bool finished() const noexcept { return !finish_reason_.empty(); }
  bool content_started() const noexcept { return blocks_.content_started(); }

  amplifier::ChatResponse take_response(std::string_view provider);

 private:
  void on_part(const boost::json::object &part);
  void function_call(const boost::json::object &part);

  EventSink sink_;
  StreamErrorMapper map_error_;
  amplifier::provider::ChunkParser parser_;  // most chunks parse without a heap allocation
  amplifier::provider::BlockBuilder blocks_;
  bool saw_call_ = false;

  std::string model_, response_id_, finish_reason_;
  std::optional<amplifier::Usage> usage_;
};

amplifier::Usage usage_from(const boost::json::object &usage_metadata);

}  // namespace gemini

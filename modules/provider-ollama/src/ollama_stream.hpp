// Ollama /api/chat lines -> the ABI's stream events, as they arrive:
//   message.thinking          -> a thinking block (typed thinking deltas); it says it goes
//                                back in Ollama's `thinking` field
//   message.content           -> a text block (typed text deltas)
//   message.tool_calls        -> one tool_call block per call, its arguments (an object, whole)
//                                as one tool-input delta. Calls without an id (the documented
//                                shape) get a stable one: call_<block index>
//   done: true                -> done_reason, prompt_eval_count / eval_count as usage, the
//                                durations into metadata; the response is ready
//   {"error": "..."}          -> a typed KernelError carrying the message
// A thinking or text block ends when the other kind begins; tool calls end as they come. A
// stream without its done line never counts as finished. The hot path: lines holding only
// text or thinking are read without a DOM (JsonFieldReader). A whole (stream: false) answer is
// the same object with done: true, replayed through the same steps.
#pragma once
#include "amplifier/errors.hpp"
#include "amplifier/json_fields.hpp"
#include "amplifier/model.hpp"
#include "amplifier/provider/block_builder.hpp"
#include "amplifier_plugin.h"

#include <boost/json/object.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace ollama {

using StreamErrorMapper = std::function<amplifier::KernelError(std::string_view payload)>;

class OllamaTranslator {
 public:
  using EventSink = amplifier::provider::EventSink;
  using DeltaSink =
      std::function<void(std::uint32_t index, amp_delta_kind kind, std::string_view text)>;

  OllamaTranslator(EventSink sink, StreamErrorMapper map_error, DeltaSink deltas);
  OllamaTranslator(const OllamaTranslator &) = delete;
  OllamaTranslator &operator=(const OllamaTranslator &) = delete;

  // One line of the body. Throws amplifier::KernelException: the server's error for an error
  // line, kind `stream` for invalid JSON or lines after the done line.
  void on_line(std::string_view line);
  void on_chunk(const boost::json::object &chunk);

  bool finished() const noexcept { return finished_; }
  bool content_started() const noexcept { return blocks_.content_started(); }

  // The response: content in block order, usage, finish_reason, metadata {provider, model,
  // done_reason, durations in ms}. Throws KernelException (stream) when the stream did not
  // finish.
  amplifier::ChatResponse take_response(std::string_view provider);

 private:
  struct LineFields {
    explicit LineFields(amplifier::JsonFieldReader &reader);
    amplifier::JsonFieldReader::Field error, done, content, thinking, tool_calls;
  };

  // True when the line held only text or thinking and was handled without a DOM.
  bool fast_line(std::string_view line);
  void tool_call(const boost::json::object &call);
  void finish(const boost::json::object &done);

  EventSink sink_;
  StreamErrorMapper map_error_;
  amplifier::JsonFieldReader reader_;
  LineFields fields_{reader_};
  amplifier::provider::BlockBuilder blocks_;
  bool saw_tool_call_ = false;

  std::string model_, done_reason_;
  std::optional<amplifier::Usage> usage_;
  boost::json::object timings_;
  bool finished_ = false;
};

}  // namespace ollama

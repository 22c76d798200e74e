// Stream events of an asynchronous call (see "Asynchronous calls" in amplifier_plugin.h):
// builders for providers, and the ResponseAssembler that turns events back into a response.
#pragma once
#include "amplifier/model.hpp"
#include "amplifier_plugin.h"

#include <boost/json/object.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace amplifier {

namespace stream {

// Event "type" values.
inline constexpr std::string_view kContentBlockStart = "content_block_start";
inline constexpr std::string_view kContentBlockDelta = "content_block_delta";
inline constexpr std::string_view kContentBlockEnd = "content_block_end";
inline constexpr std::string_view kUsage = "usage";
inline constexpr std::string_view kProgress = "progress";

// Delta "type" values.
inline constexpr std::string_view kTextDelta = "text";
inline constexpr std::string_view kThinkingDelta = "thinking";
inline constexpr std::string_view kSignatureDelta = "signature";
inline constexpr std::string_view kToolInputDelta = "tool_input";
inline constexpr std::string_view kRedactedThinkingDelta = "redacted_thinking";
inline constexpr std::string_view kReasoningDelta = "reasoning";

// {"type":"content_block_start","index":N,"block":partial_block}
boost::json::object block_start(std::size_t index, boost::json::object partial_block);
boost::json::object text_start(std::size_t index);
boost::json::object thinking_start(std::size_t index);
boost::json::object tool_call_start(std::size_t index, std::string_view id, std::string_view name);

// {"type":"content_block_delta","index":N,"delta":delta}
boost::json::object block_delta(std::size_t index, boost::json::object delta);
boost::json::object text_delta(std::size_t index, std::string_view text);
boost::json::object thinking_delta(std::size_t index, std::string_view thinking);
boost::json::object signature_delta(std::size_t index, std::string_view signature);
boost::json::object tool_input_delta(std::size_t index, std::string_view partial_json);
boost::json::object redacted_thinking_delta(std::size_t index, std::string_view data);
// A reasoning delta: a string part appends to a string, an array part's items append to an
// array; a null part is left out.
boost::json::object reasoning_delta(std::size_t index, boost::json::value content,
                                    boost::json::value summary = nullptr);

// {"type":"content_block_end","index":N,"block":complete_block}. The form without a block
// asks the assembler to complete the block from its deltas; the ABI's events carry the block,
// so providers emit the second form with what the assembler built (see feed()).
boost::json::object block_end(std::size_t index);
boost::json::object block_end(std::size_t index, const ContentBlock &block);
// serialize(block_end(index, block)), with the block's long string written once (see
// amplifier/json_text.hpp): what providers send, since the block may be a whole answer.
std::string block_end_text(std::size_t index, const ContentBlock &block);

// {"type":"usage","usage":{...}}. The object form reports only the counts known so far.
boost::json::object usage(const Usage &usage);
boost::json::object usage(boost::json::object partial_usage);

}  // namespace stream

// Builds a ChatResponse from a call's stream events, fed in order. Shared by providers (which
// build the terminal response from the events they emit) and orchestrators (which rebuild it
// from the events they receive).
//
// - text / thinking / redacted_thinking deltas append to the block's field (starting from what
//   content_block_start carried); signature deltas append to the signature;
// - tool_input partial_json accumulates and is parsed once, at the block's end;
// - content_block_end's complete block, when present, wins over the accumulated one;
// - usage events merge: later counts overwrite, counts not mentioned stay;
// - events of other types (progress, future ones) are ignored.
// Protocol violations (a delta for an index never started or already ended, a second start or
// end, a delta type that does not fit the block) throw ModelError with the path "events[K]",
// K counting the events fed.
//
// Not thread-safe: a call's events never arrive concurrently (amp_call_sink). A moved-from
// assembler may only be assigned to or destroyed.
class ResponseAssembler {
 public:
  struct Options {
    // false: check the stream's structure only (which blocks are open, which deltas fit
    // them), keeping none of the content and parsing no block: for a caller that takes the
    // response from the terminal event and must not hold a second copy of a long answer.
    // feed() then returns null for every event, and finish() is not available.
    bool keep_content = true;
  };

  ResponseAssembler();
  explicit ResponseAssembler(Options options);
  ~ResponseAssembler();
  ResponseAssembler(ResponseAssembler &&) noexcept;
  ResponseAssembler &operator=(ResponseAssembler &&) noexcept;

  // Applies one event. Returns the completed block when the event was a content_block_end,
  // otherwise null. The pointer is valid until the next call on this assembler.
  const ContentBlock *feed(const boost::json::object &event);
  // Checks that `event` is an object, then as above.
  const ContentBlock *feed(const boost::json::value &event);
  // Parses event JSON text (into a stack buffer for typical event sizes) and feeds it.
  const ContentBlock *feed_json(std::string_view event_json);
  // A typed delta (ABI 1.2): the same as feeding the content_block_delta event it stands for,
  // without building it.
  void feed_delta(std::uint64_t index, amp_delta_kind kind, std::string_view text);

  // True while a started block has not ended.
  bool has_open_blocks() const;
  // The usage merged so far (an empty object before any usage event).
  const boost::json::object &usage() const;

  // The response: blocks in index order, tool_calls from the tool_call blocks, usage when a
  // usage event came. Throws ModelError when a block is still open. Leaves the assembler empty.
  ChatResponse finish();

  // Forgets everything, ready for the next call (keeps allocated capacity).
  void reset();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace amplifier

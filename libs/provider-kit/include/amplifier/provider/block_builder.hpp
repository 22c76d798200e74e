// The content blocks of one response as a translator builds them from a vendor's stream, and
// the live events that go with them: starts, typed deltas, ends with the complete block. Text
// and thinking arrive as pieces into the one block of their kind that is open (a new kind ends
// it); tool calls are blocks of their own. Shared by the translators of vendors whose streams
// carry no block structure of their own (Chat Completions, Ollama, Gemini).
//
// THREADS: one builder per stream.
#pragma once
#include "amplifier/model.hpp"
#include "amplifier/provider/event_sink.hpp"
#include "amplifier_plugin.h"

#include <boost/json/object.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace amplifier::provider {

// A tool call whose arguments arrived as JSON text. Arguments that are not a JSON object never
// fail the call: input {}, the raw text in extra.arguments and the reason in
// extra.arguments_error (see ToolCallBlock). Text that a parse does not give back unchanged
// is kept in extra.arguments too, so the call goes back exactly as the model wrote it.
amplifier::ToolCallBlock tool_call_from_arguments(std::string id, std::string name,
                                                  const std::string &arguments);

class BlockBuilder {
 public:
  using EventSink = amplifier::provider::EventSink;
  using DeltaSink =
      std::function<void(std::uint32_t index, amp_delta_kind kind, std::string_view text)>;
  // Completes a block as it ends (a signature, extra fields).
  using Decorate = std::function<void(amplifier::ContentBlock &block)>;

  // `on_end` completes every text or thinking block as it ends, however it ends (the
  // translator's state: which field reasoning came in, a refusal).
  BlockBuilder(EventSink events, DeltaSink deltas, Decorate on_end = {});

  // A piece of text or thinking; an empty piece changes nothing.
  void text(std::string_view piece);
  void thinking(std::string_view piece);
  // Ends the open text or thinking block, if any, completed by on_end and then `decorate`.
  void end_open(const Decorate &decorate = {});
  // Ends the open block and opens one of the kind, even if that kind was open (a vendor part
  // that must stay a block of its own).
  void start_text();
  void start_thinking();
  bool thinking_open() const noexcept { return open_ == Open::thinking; }
  bool text_open() const noexcept { return open_ == Open::text; }

  // A tool call block: started, its input as one or more tool-input deltas, ended with the
  // complete block. Returns its index.
  std::size_t start_tool_call(std::string_view id, std::string_view name);
  void tool_input(std::size_t index, std::string_view piece);
  void end_block(std::size_t index, amplifier::ContentBlock block);

  // The index the next block gets (a call id can be made from it).
  std::size_t next_index() const noexcept { return next_index_; }
  bool content_started() const noexcept { return next_index_ > 0; }
  // The ended blocks in index order; the open one is ended first.
  std::vector<amplifier::ContentBlock> take_content();

 private:
  enum class Open { none, text, thinking };
  void open(Open kind);

  EventSink events_;
  DeltaSink deltas_;
  Decorate on_end_;
  Open open_ = Open::none;
  std::size_t open_index_ = 0;
  std::string open_text_;
  std::map<std::size_t, amplifier::ContentBlock> ended_;
  std::size_t next_index_ = 0;
};

}  // namespace amplifier::provider

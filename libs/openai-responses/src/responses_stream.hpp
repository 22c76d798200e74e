// Responses API stream events -> the ABI's stream events, one at a time, as they arrive:
//   response.created / .in_progress         -> response id and model kept
//   response.output_item.added              -> content_block_start for reasoning (block
//                                              {type: reasoning}) and function_call (tool_call)
//   response.content_part.added             -> content_block_start (text) for output_text and
//                                              refusal parts
//   response.output_text.delta, .refusal.delta            -> text deltas (typed)
//   response.function_call_arguments.delta  -> tool_input deltas (typed)
//   response.reasoning_summary_text.delta, .reasoning_text.delta
//                                           -> reasoning deltas {summary} / {content} (JSON)
//   *.done events                           -> the final text wins over the deltas (a stream
//                                              whose deltas were cut still ends right)
//   response.output_item.done               -> content_block_end with the complete block:
//                                              reasoning {summary, content, id,
//                                              encrypted_content}, tool_call (arguments parsed
//                                              once), text
//   response.completed / .incomplete        -> usage; the stream is finished. encrypted_content
//                                              may change up to here: the last value is kept in
//                                              the result (a reasoning block's end event, sent
//                                              live at output_item.done, has the value then)
//   response.failed, error                  -> a typed KernelError (both error shapes)
//   anything else (unknown types, obfuscation fields) -> ignored
// A non-streamed Response (stream: false) is replayed through the same steps.
//
// Tool arguments that are not a JSON object never fail the call: the tool_call block gets
// input {} and keeps the raw text in extra.arguments with the reason in extra.arguments_error,
// which the orchestrator turns into an error result the model can read.
//
// The hot path: delta events (and the large response.created / .in_progress, of which only id
// and model matter) are read without a DOM (amplifier::JsonFieldReader); text and tool-input
// deltas go out typed (ABI 1.2).
#pragma once
#include "amplifier/errors.hpp"
#include "amplifier/json_fields.hpp"
#include "amplifier/model.hpp"
#include "amplifier/provider/event_sink.hpp"
#include "amplifier_plugin.h"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace openai_responses {

// Responses usage {input_tokens, output_tokens, total_tokens, input_tokens_details.
// cached_tokens, output_tokens_details.reasoning_tokens} -> Usage. input_tokens stays the
// API's (cached tokens included); cache_read_tokens says how many of them were cached.
amplifier::Usage usage_from(const boost::json::object &usage);
// Adds `more` to `total` (a continued response's rounds).
void add_usage(amplifier::Usage &total, const amplifier::Usage &more);

using StreamErrorMapper = std::function<amplifier::KernelError(std::string_view payload)>;

// What one response round produced.
struct RoundResult {
  std::vector<amplifier::ContentBlock> content;
  std::optional<amplifier::Usage> usage;
  std::string status;             // completed | incomplete
  std::string incomplete_reason;  // max_output_tokens | content_filter | ...
  bool refused = false;           // a refusal part came
  std::string response_id;
  std::string model;
  boost::json::value content_filters;  // Azure's top-level content_filters, when present
};

class ResponsesTranslator {
 public:
  using EventSink = amplifier::provider::EventSink;
  using DeltaSink =
      std::function<void(std::uint32_t index, amp_delta_kind kind, std::string_view text)>;

  // `sink` receives every ABI stream event in order; `deltas`, when given, receives text and
  // tool-input deltas typed instead. Block indices start at `first_index` (a continuation
  // goes on numbering after the rounds before it).
  ResponsesTranslator(EventSink sink, StreamErrorMapper map_error, DeltaSink deltas = {},
                      std::size_t first_index = 0);

  // One SSE event (`event_type`: its `event:` field, used when the data has no "type").
  // Throws amplifier::KernelException: the vendor's error for error / response.failed, kind
  // `stream` for invalid JSON or an event that contradicts the stream so far.
  void on_sse_event(std::string_view event_type, std::string_view data);
  void on_event(const boost::json::object &event);
  // A whole non-streamed Response object.
  void on_response(const boost::json::object &response);

  // True once response.completed or response.incomplete arrived.
  bool finished() const noexcept { return finished_; }
  // True once a content block started (from then on a retry would repeat content).
  bool content_started() const noexcept { return next_index_ > first_index_; }
  std::size_t next_index() const noexcept { return next_index_; }

  // Throws KernelException (stream) when the stream did not finish.
  RoundResult take_result();

 private:
  enum class BlockKind { reasoning, text, tool_call };
  struct OpenBlock {
    BlockKind kind = BlockKind::text;
    std::size_t index = 0;  // ours: dense, in start order
    std::string item_id;
    std::string text;  // text, or the function call's arguments
    std::vector<std::string> summary;
    std::vector<std::string> reasoning_text;
    boost::json::value encrypted_content;
    std::string call_id, name;
    bool refusal = false;
    boost::json::value annotations;
  };
  // (output_index, content_index); item-level blocks (reasoning, function calls) use -1.
  using Key = std::pair<std::int64_t, std::int64_t>;

  struct DeltaFields {
    explicit DeltaFields(amplifier::JsonFieldReader &reader);
    amplifier::JsonFieldReader::Field type, output_index, content_index, summary_index, delta;
    amplifier::JsonFieldReader::Field response_id, response_model;  // created / in_progress
  };

  bool fast_delta(std::string_view event_type, std::string_view data);
  void apply_delta(std::string_view type, std::int64_t output_index, std::int64_t content_index,
                   std::int64_t summary_index, std::string_view delta);
  void item_added(const boost::json::object &event);
  void part_added(const boost::json::object &event);
  void text_done(const boost::json::object &event, std::string_view field);
  void summary_done(const boost::json::object &event);
  void arguments_done(const boost::json::object &event);
  void part_done(const boost::json::object &event);
  void item_done(const boost::json::object &event);
  void response_finished(const boost::json::object &event);
  void replay_item(std::int64_t output_index, const boost::json::object &item);

  OpenBlock &open(Key key, BlockKind kind, const boost::json::object *item);
  OpenBlock *find(Key key);
  OpenBlock &text_part(std::int64_t output_index, std::int64_t content_index, bool refusal);
  void end_block(Key key);
  amplifier::ContentBlock finished_block(OpenBlock &block);
  void emit(const boost::json::object &event);
  void emit_delta(std::size_t index, amp_delta_kind kind, std::string_view text);
  void emit_reasoning(std::size_t index, std::string_view text, bool summary);

  EventSink sink_;
  StreamErrorMapper map_error_;
  DeltaSink deltas_;
  amplifier::JsonFieldReader reader_;
  DeltaFields fields_{reader_};
  std::map<Key, OpenBlock> open_;
  std::map<std::size_t, amplifier::ContentBlock> blocks_;  // ended, by our index
  std::map<std::string, std::size_t> reasoning_by_id_;     // item id -> our index
  std::set<Key> ended_;  // text parts already ended (an item's done event repeats them)
  std::size_t first_index_ = 0;
  std::size_t next_index_ = 0;
  bool finished_ = false;
  RoundResult result_;
};

}  // namespace openai_responses

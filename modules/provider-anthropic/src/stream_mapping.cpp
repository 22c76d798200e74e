#include "stream_mapping.hpp"

#include "amplifier/provider/stream_failure.hpp"
#include "amplifier/module_support/json_util.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace provider_anthropic {

namespace json = boost::json;
namespace stream = amplifier::stream;
using amplifier::ErrorKind;
using amplifier::KernelError;
using amplifier::KernelException;

namespace {

using amplifier::provider::fail_stream;
using amplifier::provider::fail_with;

using amplifier::module_support::string_at;
using amplifier::module_support::object_at;
using amplifier::module_support::count_at;

std::int64_t index_of(const json::object &event) {
  const auto index = count_at(event, "index");
  if (!index) fail_stream(std::string(string_at(event, "type")) + " event has no index");
  return *index;
}

// A non-streamed Message's content block as the content_block_start a stream opens with: the
// same block with its growing fields emptied (they follow as deltas).
json::object opening_of(const json::object &block) {
  json::object opening = block;
  const std::string_view type = string_at(block, "type");
  if (type == "text") opening["text"] = "";
  if (type == "thinking") {
    opening["thinking"] = "";
    opening["signature"] = "";
  }
  if (type == "tool_use") opening["input"] = json::object{};
  return opening;
}

// The deltas a stream would have carried for `block` (at most one of each kind).
std::vector<json::object> deltas_of(const json::object &block) {
  const std::string_view type = string_at(block, "type");
  std::vector<json::object> deltas;
  if (type == "text")
    deltas.push_back({{"type", "text_delta"}, {"text", string_at(block, "text")}});
  if (type == "thinking") {
    deltas.push_back({{"type", "thinking_delta"}, {"thinking", string_at(block, "thinking")}});
    deltas.push_back({{"type", "signature_delta"}, {"signature", string_at(block, "signature")}});
  }
  if (type == "tool_use") {
    const json::value *input = block.if_contains("input");
    deltas.push_back({{"type", "input_json_delta"},
                      {"partial_json", input ? json::serialize(*input) : std::string("{}")}});
  }
  return deltas;
}

}  // namespace

void merge_anthropic_usage(const json::object &anthropic, amplifier::Usage &usage) {
  if (auto n = count_at(anthropic, "input_tokens")) usage.input_tokens = *n;
  if (auto n = count_at(anthropic, "output_tokens")) usage.output_tokens = *n;
  if (auto n = count_at(anthropic, "cache_read_input_tokens")) usage.cache_read_tokens = *n;
  if (auto n = count_at(anthropic, "cache_creation_input_tokens")) usage.cache_write_tokens = *n;
  // Of those writes, the 1-hour ones (priced at twice the input, the 5-minute ones at 1.25x).
  if (const json::object *creation = object_at(anthropic, "cache_creation"))
    if (auto n = count_at(*creation, "ephemeral_1h_input_tokens"); n && *n > 0)
      usage.extra["cache_write_1h_tokens"] = *n;
  if (const json::object *details = object_at(anthropic, "output_tokens_details")) {
    if (auto n = count_at(*details, "thinking_tokens")) usage.reasoning_tokens = *n;
  }
  usage.total_tokens = usage.input_tokens + usage.output_tokens +
                       usage.cache_read_tokens.value_or(0) + usage.cache_write_tokens.value_or(0);
}

StreamTranslator::DeltaFields::DeltaFields(amplifier::JsonFieldReader &reader)
    : type(reader.declare({"type"})),
      index(reader.declare({"index"})),
      delta_type(reader.declare({"delta", "type"})),
      text(reader.declare({"delta", "text"})),
      thinking(reader.declare({"delta", "thinking"})),
      signature(reader.declare({"delta", "signature"})),
      partial_json(reader.declare({"delta", "partial_json"})) {}

StreamTranslator::StreamTranslator(EventSink sink, StreamErrorMapper map_error, DeltaSink deltas)
    : sink_(std::move(sink)), map_error_(std::move(map_error)), deltas_(std::move(deltas)) {}

void StreamTranslator::on_sse_event(std::string_view event_type, std::string_view data) {
  if (fast_delta(event_type, data)) return;
  json::error_code ec;
  json::value parsed = json::parse(data, ec);
  if (ec)
    fail_stream("invalid JSON in a '" + std::string(event_type) +
                "' stream event: " + ec.message());
  if (!parsed.is_object())
    fail_stream("a '" + std::string(event_type) + "' stream event is not a JSON object");
  json::object &event = parsed.get_object();
  if (!event.contains("type")) event["type"] = event_type;
  if (string_at(event, "type") == "error") throw KernelException(map_error_(data));
  on_event(event);
}

void StreamTranslator::on_event(const json::object &event) {
  if (complete_) return;  // nothing may follow message_stop
  const std::string_view type = string_at(event, "type");
  if (type == "content_block_delta") return block_delta(event);  // the most frequent first
  if (type == "message_start") return message_start(event);
  if (type == "content_block_start") return block_start(event);
  if (type == "content_block_stop") return block_stop(event);
  if (type == "message_delta") return message_delta(event);
  if (type == "message_stop") return message_stop();
  if (type == "error") throw KernelException(map_error_(json::serialize(event)));
  // ping, and event types newer than this code: nothing to do.
}

void StreamTranslator::on_message(const json::object &message) {
  json::object start_message = message;
  start_message["content"] = json::array{};
  on_event({{"type", "message_start"}, {"message", std::move(start_message)}});
  if (const json::value *content = message.if_contains("content"); content && content->is_array()) {
    std::int64_t index = 0;
    for (const json::value &item : content->get_array()) {
      if (!item.is_object()) fail_stream("a content block of the response is not an object");
      const json::object &block = item.get_object();
      on_event({{"type", "content_block_start"},
                {"index", index},
                {"content_block", opening_of(block)}});
      for (json::object &delta : deltas_of(block))
        on_event({{"type", "content_block_delta"}, {"index", index}, {"delta", std::move(delta)}});
      on_event({{"type", "content_block_stop"}, {"index", index}});
      ++index;
    }
  }
  json::object delta{
      {"stop_reason", message.contains("stop_reason") ? message.at("stop_reason") : nullptr},
      {"stop_sequence", message.contains("stop_sequence") ? message.at("stop_sequence") : nullptr}};
  if (const json::value *details = message.if_contains("stop_details"))
    delta["stop_details"] = *details;
  json::object message_delta{{"type", "message_delta"}, {"delta", std::move(delta)}};
  if (const json::value *usage = message.if_contains("usage")) message_delta["usage"] = *usage;
  on_event(message_delta);
  on_event({{"type", "message_stop"}});
}

bool StreamTranslator::fast_delta(std::string_view event_type, std::string_view data) {
  // Read (and validated) without a DOM: most events of a stream are deltas. Anything that is
  // not plainly an object takes the DOM path, which says what is wrong with it.
  const auto first = data.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || data[first] != '{') return false;
  if (!reader_.read(data))
    fail_stream("invalid JSON in a '" + std::string(event_type) + "' stream event: " +
                std::string(reader_.error()));
  const std::string_view type =
      reader_.has(fields_.type) ? reader_.string(fields_.type) : event_type;
  if (type != "content_block_delta" || complete_) return false;
  const auto index = reader_.integer(fields_.index);
  if (!index) fail_stream("content_block_delta event has no index");
  if (reader_.kind(fields_.delta_type) != amplifier::JsonFieldReader::Kind::string)
    return false;  // no delta object, or an odd one: the DOM path says what is wrong
  const std::string_view delta_type = reader_.string(fields_.delta_type);
  std::string_view payload;
  if (delta_type == "text_delta") payload = reader_.string(fields_.text);
  else if (delta_type == "thinking_delta") payload = reader_.string(fields_.thinking);
  else if (delta_type == "signature_delta") payload = reader_.string(fields_.signature);
  else if (delta_type == "input_json_delta") payload = reader_.string(fields_.partial_json);
  apply_delta(*index, delta_type, payload);
  return true;
}

void StreamTranslator::emit(const json::object &event) { sink_(event); }

void StreamTranslator::emit_delta(std::size_t index, amp_delta_kind kind, std::string_view text) {
  if (deltas_) return deltas_(static_cast<std::uint32_t>(index), kind, text);
  switch (kind) {  // no typed sink: the JSON events the deltas stand for
    case AMP_DELTA_TEXT: return emit(stream::text_delta(index, text));
    case AMP_DELTA_THINKING: return emit(stream::thinking_delta(index, text));
    case AMP_DELTA_SIGNATURE: return emit(stream::signature_delta(index, text));
    case AMP_DELTA_TOOL_INPUT: return emit(stream::tool_input_delta(index, text));
    case AMP_DELTA_REDACTED_THINKING: return emit(stream::redacted_thinking_delta(index, text));
    default: return;
  }
}

void StreamTranslator::message_start(const json::object &event) {
  const json::object *message = object_at(event, "message");
  if (!message) return;
  model_ = std::string(string_at(*message, "model"));
  response_id_ = std::string(string_at(*message, "id"));
  if (const json::object *usage = object_at(*message, "usage")) {
    merge_anthropic_usage(*usage, usage_);
    usage_seen_ = true;
    emit_usage();
  }
}

void StreamTranslator::block_start(const json::object &event) {
  const std::int64_t anthropic_index = index_of(event);
  if (open_.contains(anthropic_index))
    fail_stream("content block " + std::to_string(anthropic_index) + " started twice");
  const json::object *block = object_at(event, "content_block");
  if (!block) fail_stream("content_block_start has no content_block");
  const std::string_view type = string_at(*block, "type");
  // Passed through as it came, a block without a type is one the kernel cannot read (found by
  // fuzzing: the orchestrator's assembler refused it mid-stream).
  if (type.empty()) fail_stream("content_block_start has a content_block without a type");

  OpenBlock open;
  open.index = next_index_++;
  if (type == "text") {
    open.kind = BlockKind::text;
    emit(stream::text_start(open.index));
    if (auto text = string_at(*block, "text"); !text.empty()) {
      open.text = text;
      emit_delta(open.index, AMP_DELTA_TEXT, text);
    }
  } else if (type == "thinking") {
    open.kind = BlockKind::thinking;
    emit(stream::thinking_start(open.index));
    if (auto thinking = string_at(*block, "thinking"); !thinking.empty()) {
      open.text = thinking;
      emit_delta(open.index, AMP_DELTA_THINKING, thinking);
    }
    if (auto signature = string_at(*block, "signature"); !signature.empty()) {
      open.signature = signature;
      emit_delta(open.index, AMP_DELTA_SIGNATURE, signature);
    }
  } else if (type == "redacted_thinking") {
    // Arrives whole: the opaque data must go back to the API exactly as received.
    open.kind = BlockKind::redacted_thinking;
    open.text = string_at(*block, "data");
    emit(stream::block_start(open.index, json::object{{"type", "redacted_thinking"}}));
    emit_delta(open.index, AMP_DELTA_REDACTED_THINKING, open.text);
  } else if (type == "tool_use") {
    open.kind = BlockKind::tool_call;
    open.id = string_at(*block, "id");
    open.name = string_at(*block, "name");
    if (const json::object *input = object_at(*block, "input")) open.initial_input = *input;
    emit(stream::tool_call_start(open.index, open.id, open.name));
  } else {
    // server_tool_use, web_search_tool_result...: kept whole, as the API sent them.
    open.kind = BlockKind::passthrough;
    open.raw = *block;
    emit(stream::block_start(open.index, *block));
  }
  open_.emplace(anthropic_index, std::move(open));
}

StreamTranslator::OpenBlock &StreamTranslator::open_block(std::int64_t anthropic_index,
                                                          std::string_view what) {
  auto it = open_.find(anthropic_index);
  if (it == open_.end())
    fail_stream(std::string(what) + " for content block " + std::to_string(anthropic_index) +
                ", which is not open");
  return it->second;
}

void StreamTranslator::block_delta(const json::object &event) {
  const std::int64_t anthropic_index = index_of(event);
  const json::object *delta = object_at(event, "delta");
  if (!delta) fail_stream("content_block_delta has no delta");
  const std::string_view type = string_at(*delta, "type");
  std::string_view payload;
  if (type == "text_delta") payload = string_at(*delta, "text");
  else if (type == "thinking_delta") payload = string_at(*delta, "thinking");
  else if (type == "signature_delta") payload = string_at(*delta, "signature");
  else if (type == "input_json_delta") payload = string_at(*delta, "partial_json");
  apply_delta(anthropic_index, type, payload);
}

// One delta, whichever way it was read. `payload` is the delta's one string field ("" when
// the event had none, which is ignored as an empty delta is).
void StreamTranslator::apply_delta(std::int64_t anthropic_index, std::string_view type,
                                   std::string_view payload) {
  OpenBlock &block = open_block(anthropic_index, "content_block_delta");
  if (block.kind == BlockKind::passthrough) {
    // Server-side tool blocks stream their input like tool_use does; it completes the raw block.
    if (type == "input_json_delta") block.partial_json += payload;
    return;
  }
  auto expect = [&](BlockKind kind) {
    if (block.kind != kind)
      fail_stream("a " + std::string(type) + " arrived for a content block of another type");
  };
  if (type == "text_delta") {
    expect(BlockKind::text);
    if (payload.empty()) return;
    block.text += payload;
    emit_delta(block.index, AMP_DELTA_TEXT, payload);
  } else if (type == "thinking_delta") {
    expect(BlockKind::thinking);
    if (payload.empty()) return;
    block.text += payload;
    emit_delta(block.index, AMP_DELTA_THINKING, payload);
  } else if (type == "signature_delta") {
    expect(BlockKind::thinking);
    if (payload.empty()) return;
    block.signature += payload;
    emit_delta(block.index, AMP_DELTA_SIGNATURE, payload);
  } else if (type == "input_json_delta") {
    expect(BlockKind::tool_call);
    if (payload.empty()) return;  // the API opens every tool input with an empty fragment
    block.partial_json += payload;
    emit_delta(block.index, AMP_DELTA_TOOL_INPUT, payload);
  }
  // citations_delta and newer delta types carry nothing the unified blocks hold.
}

amplifier::ContentBlock StreamTranslator::finished_block(OpenBlock &block) {
  switch (block.kind) {
    case BlockKind::text:
      return amplifier::TextBlock{std::move(block.text), std::nullopt, {}};
    case BlockKind::thinking: {
      amplifier::ThinkingBlock thinking{std::move(block.text), std::nullopt, std::nullopt, {}};
      if (!block.signature.empty()) thinking.signature = std::move(block.signature);
      return thinking;
    }
    case BlockKind::redacted_thinking:
      return amplifier::RedactedThinkingBlock{std::move(block.text), std::nullopt, {}};
    case BlockKind::tool_call: {
      json::object input = std::move(block.initial_input);
      if (!block.partial_json.empty()) {
        json::error_code ec;
        json::value parsed = json::parse(block.partial_json, ec);
        if (ec || !parsed.is_object())
          fail_with(ErrorKind::invalid_tool_call, "the input of tool call '" + block.name + "' (" +
                                                 block.id +
                                                 ") is not a JSON object: " + block.partial_json);
        input = std::move(parsed.get_object());
      }
      return amplifier::ToolCallBlock{
          std::move(block.id), std::move(block.name), std::move(input), std::nullopt, {}};
    }
    case BlockKind::passthrough:
      break;
  }
  if (!block.partial_json.empty()) {
    json::error_code ec;
    json::value input = json::parse(block.partial_json, ec);
    if (!ec) block.raw["input"] = std::move(input);
  }
  return amplifier::UnknownBlock{std::move(block.raw)};
}

void StreamTranslator::block_stop(const json::object &event) {
  const std::int64_t anthropic_index = index_of(event);
  OpenBlock &block = open_block(anthropic_index, "content_block_stop");
  const std::size_t index = block.index;
  amplifier::ContentBlock complete = finished_block(block);
  open_.erase(anthropic_index);
  sink_.block_end(index, complete);
  finished_.emplace(index, std::move(complete));  // the text's one copy, kept for the response
}

void StreamTranslator::message_delta(const json::object &event) {
  if (const json::object *delta = object_at(event, "delta")) {
    if (auto reason = string_at(*delta, "stop_reason"); !reason.empty())
      stop_reason_ = std::string(reason);
    if (const json::value *sequence = delta->if_contains("stop_sequence"))
      stop_sequence_ = *sequence;
    if (const json::value *details = delta->if_contains("stop_details")) stop_details_ = *details;
  }
  if (const json::object *usage = object_at(event, "usage")) {
    merge_anthropic_usage(*usage, usage_);
    usage_seen_ = true;
    emit_usage();
  }
}

void StreamTranslator::message_stop() {
  if (!open_.empty())
    fail_stream("message_stop arrived while content block " + std::to_string(open_.begin()->first) +
                " was still open");
  complete_ = true;
}

void StreamTranslator::emit_usage() { emit(stream::usage(usage_)); }

amplifier::ChatResponse StreamTranslator::take_response(std::string_view provider_id) {
  if (!complete_) fail_stream("the stream ended before message_stop");
  amplifier::ChatResponse response;
  response.content.reserve(finished_.size());
  for (auto &[index, block] : finished_) response.content.push_back(std::move(block));
  finished_.clear();
  response.tool_calls = amplifier::collect_tool_calls(response.content);
  if (usage_seen_) response.usage = usage_;
  response.finish_reason = stop_reason_;
  json::object metadata{
      {"provider", provider_id}, {"model", model_}, {"response_id", response_id_}};
  if (stop_sequence_.is_string()) metadata["stop_sequence"] = stop_sequence_;
  if (!stop_details_.is_null()) metadata["stop_details"] = stop_details_;
  response.metadata = std::move(metadata);
  return response;
}

}  // namespace provider_anthropic

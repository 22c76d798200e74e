// Builders of the ABI's stream event objects.
#include "amplifier/stream.hpp"

#include "amplifier/json_text.hpp"


namespace amplifier::stream {
namespace json = boost::json;

namespace {

json::object indexed_event(std::string_view type, std::size_t index) {
  json::object event;
  event.reserve(3);
  event.emplace("type", type);
  event.emplace("index", index);
  return event;
}

// A delta carrying one string field, the common case: {"type":T, field:text}.
json::object string_delta(std::size_t index, std::string_view delta_type, std::string_view field,
                          std::string_view text) {
  json::object delta;
  delta.reserve(2);
  delta.emplace("type", delta_type);
  delta.emplace(field, text);
  return block_delta(index, std::move(delta));
}

}  // namespace

json::object block_start(std::size_t index, json::object partial_block) {
  json::object event = indexed_event(kContentBlockStart, index);
  event.emplace("block", std::move(partial_block));
  return event;
}

json::object text_start(std::size_t index) {
  return block_start(index, json::object{{"type", TextBlock::kType}});
}

json::object thinking_start(std::size_t index) {
  return block_start(index, json::object{{"type", ThinkingBlock::kType}});
}

json::object tool_call_start(std::size_t index, std::string_view id, std::string_view name) {
  return block_start(index,
                     json::object{{"type", ToolCallBlock::kType}, {"id", id}, {"name", name}});
}

json::object block_delta(std::size_t index, json::object delta) {
  json::object event = indexed_event(kContentBlockDelta, index);
  event.emplace("delta", std::move(delta));
  return event;
}

json::object text_delta(std::size_t index, std::string_view text) {
  return string_delta(index, kTextDelta, "text", text);
}

json::object thinking_delta(std::size_t index, std::string_view thinking) {
  return string_delta(index, kThinkingDelta, "thinking", thinking);
}

json::object signature_delta(std::size_t index, std::string_view signature) {
  return string_delta(index, kSignatureDelta, "signature", signature);
}

json::object tool_input_delta(std::size_t index, std::string_view partial_json) {
  return string_delta(index, kToolInputDelta, "partial_json", partial_json);
}

json::object redacted_thinking_delta(std::size_t index, std::string_view data) {
  return string_delta(index, kRedactedThinkingDelta, "data", data);
}

json::object reasoning_delta(std::size_t index, json::value content, json::value summary) {
  json::object delta;
  delta.emplace("type", kReasoningDelta);
  if (!content.is_null()) delta.emplace("content", std::move(content));
  if (!summary.is_null()) delta.emplace("summary", std::move(summary));
  return block_delta(index, std::move(delta));
}

json::object block_end(std::size_t index) { return indexed_event(kContentBlockEnd, index); }

json::object block_end(std::size_t index, const ContentBlock &block) {
  json::object event = indexed_event(kContentBlockEnd, index);
  event.emplace("block", to_json(block));
  return event;
}

std::string block_end_text(std::size_t index, const ContentBlock &block) {
  return detail::render_block(
      block, [index](const ContentBlock &b) { return json::value(block_end(index, b)); });
}

json::object usage(const Usage &counts) { return usage(to_json(counts)); }

json::object usage(json::object partial_usage) {
  json::object event;
  event.reserve(2);
  event.emplace("type", kUsage);
  event.emplace("usage", std::move(partial_usage));
  return event;
}

}  // namespace amplifier::stream

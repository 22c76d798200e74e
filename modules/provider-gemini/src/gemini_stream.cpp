#include "gemini_stream.hpp"

#include "gemini_config.hpp"

#include "amplifier/module_support/json_util.hpp"
#include "amplifier/provider/stream_failure.hpp"
#include "amplifier/stream.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace gemini {

namespace json = boost::json;
namespace stream = amplifier::stream;
using amplifier::ErrorKind;
using amplifier::KernelError;
using amplifier::KernelException;
using amplifier::module_support::array_at;
using amplifier::module_support::count_at;
using amplifier::module_support::object_at;
using amplifier::module_support::string_at;

namespace {

using amplifier::provider::fail_with;

bool filtered(std::string_view reason) {
  return reason == "SAFETY" || reason == "RECITATION" || reason == "PROHIBITED_CONTENT" ||
         reason == "BLOCKLIST" || reason == "SPII" || reason == "IMAGE_SAFETY";
}

}  // namespace

amplifier::Usage usage_from(const json::object &usage) {
  amplifier::Usage out;
  out.input_tokens = count_at(usage, "promptTokenCount").value_or(0);
  const auto thoughts = count_at(usage, "thoughtsTokenCount");
  out.output_tokens = count_at(usage, "candidatesTokenCount").value_or(0) + thoughts.value_or(0);
  out.total_tokens =
      count_at(usage, "totalTokenCount").value_or(out.input_tokens + out.output_tokens);
  out.reasoning_tokens = thoughts;
  out.cache_read_tokens = count_at(usage, "cachedContentTokenCount");
  return out;
}

GeminiTranslator::GeminiTranslator(EventSink sink, StreamErrorMapper map_error, DeltaSink deltas)
    : sink_(sink),
      map_error_(std::move(map_error)),
      blocks_(std::move(sink), std::move(deltas), [](amplifier::ContentBlock &block) {
        // Thought parts go back as thought parts.
        if (auto *thinking = std::get_if<amplifier::ThinkingBlock>(&block))
          thinking->extra[amplifier::ThinkingBlock::kReasoningFieldKey] = kReasoningField;
      }) {}

void GeminiTranslator::on_sse_data(std::string_view data) {
  json::error_code ec;
  const json::value *chunk = parser_.parse(data, ec);
  if (!chunk) fail_with(ErrorKind::stream, "invalid JSON in a stream chunk: " + ec.message());
  // The API wraps an error in a one-element array at times.
  if (chunk->is_array() && chunk->get_array().size() == 1) chunk = &chunk->get_array().front();
  if (!chunk->is_object()) fail_with(ErrorKind::stream, "a stream chunk is not a JSON object");
  on_chunk(chunk->get_object());
}

void GeminiTranslator::on_chunk(const json::object &chunk) {
  if (chunk.contains("error")) throw KernelException(map_error_(json::serialize(chunk)));
  if (const json::object *feedback = object_at(chunk, "promptFeedback"))
    if (auto reason = string_at(*feedback, "blockReason"); !reason.empty())
      fail_with(ErrorKind::content_filter,
                "Gemini blocked the prompt (" + std::string(reason) + ")");
  if (auto model = string_at(chunk, "modelVersion"); !model.empty()) model_ = model;
  if (auto id = string_at(chunk, "responseId"); !id.empty()) response_id_ = id;
  // Cumulative: the last value is the response's.
  if (const json::object *usage = object_at(chunk, "usageMetadata")) usage_ = usage_from(*usage);
  const json::array *candidates = array_at(chunk, "candidates");
  if (!candidates || candidates->empty() || !candidates->front().is_object()) return;
  const json::object &candidate = candidates->front().get_object();
  if (const json::object *content = object_at(candidate, "content"))
    if (const json::array *parts = array_at(*content, "parts"))
      for (const json::value &part : *parts)
        if (const json::object *object = part.if_object()) on_part(*object);
  if (auto reason = string_at(candidate, "finishReason"); !reason.empty()) {
    blocks_.end_open();
    finish_reason_ = reason;
    if (usage_) sink_(stream::usage(*usage_));
  }
}

void GeminiTranslator::on_part(const json::object &part) {
  if (part.contains("functionCall")) return function_call(part);
  const json::value *text_value = part.if_contains("text");
  if (!text_value || !text_value->is_string()) return;  // inline data and newer kinds: not kept
  const std::string_view text = text_value->get_string();
  const std::string signature(string_at(part, "thoughtSignature"));
  const json::value *thought = part.if_contains("thought");
  const bool thinking = thought && thought->is_bool() && thought->get_bool();
  if (text.empty() && signature.empty()) return;  // an empty part says nothing
  const bool open_of_kind = thinking ? blocks_.thinking_open() : blocks_.text_open();
  // A signed part is a block of its own: the signature must go back on that part alone.
  if (!signature.empty() || !open_of_kind) {
    if (thinking)
      blocks_.start_thinking();
    else
      blocks_.start_text();
  }
  if (thinking)
    blocks_.thinking(text);
  else
    blocks_.text(text);
  if (signature.empty()) return;
  blocks_.end_open([&](amplifier::ContentBlock &block) {
    if (auto *th = std::get_if<amplifier::ThinkingBlock>(&block)) th->signature = signature;
    if (auto *t = std::get_if<amplifier::TextBlock>(&block)) t->extra[kSignatureKey] = signature;
  });
}

void GeminiTranslator::function_call(const json::object &part) {
  saw_call_ = true;
  const json::object *call = object_at(part, "functionCall");
  std::string id(call ? string_at(*call, "id") : std::string_view());
  const bool vendor_id = !id.empty();
  // The API gives none: stable per response.
  if (id.empty()) id = "call_" + std::to_string(blocks_.next_index());
  const std::string name(call ? string_at(*call, "name") : std::string_view());
  amplifier::ToolCallBlock block{id, name, {}, std::nullopt, {}};
  if (vendor_id) block.extra[kVendorIdKey] = true;  // sent back (gemini_request.cpp)
  if (const json::object *args = call ? object_at(*call, "args") : nullptr) block.input = *args;
  if (auto signature = string_at(part, "thoughtSignature"); !signature.empty())
    block.extra[kSignatureKey] = signature;
  const std::size_t index = blocks_.start_tool_call(id, name);
  blocks_.tool_input(index, json::serialize(block.input));
  blocks_.end_block(index, std::move(block));
}

amplifier::ChatResponse GeminiTranslator::take_response(std::string_view provider) {
  if (!finished()) fail_with(ErrorKind::stream, "the stream ended before a finishReason");
  amplifier::ChatResponse response;
  response.content = blocks_.take_content();
  response.tool_calls = amplifier::collect_tool_calls(response.content);
  response.usage = usage_;
  if (filtered(finish_reason_))
    response.finish_reason = "content_filter";
  else if (finish_reason_ == "MAX_TOKENS")
    response.finish_reason = "length";
  else
    response.finish_reason = saw_call_ ? "tool_calls" : "stop";
  json::object metadata{
      {"provider", provider}, {"model", model_}, {"finish_reason", finish_reason_}};
  if (!response_id_.empty()) metadata["response_id"] = response_id_;
  response.metadata = std::move(metadata);
  return response;
}

}  // namespace gemini

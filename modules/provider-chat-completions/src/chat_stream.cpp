#include "chat_stream.hpp"

#include "chat_config.hpp"

#include "amplifier/module_support/json_util.hpp"
#include "amplifier/provider/stream_failure.hpp"
#include "amplifier/stream.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace chat_completions {

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

using amplifier::provider::fail_stream;

std::string finish_reason_of(std::string_view vendor, bool tool_calls) {
  if (vendor == "length") return "length";
  if (vendor == "content_filter") return "content_filter";
  if (vendor == "tool_calls" || vendor == "function_call" || tool_calls) return "tool_calls";
  return "stop";
}

}  // namespace

amplifier::Usage usage_from(const json::object &usage) {
  amplifier::Usage out;
  out.input_tokens = count_at(usage, "prompt_tokens").value_or(0);
  out.output_tokens = count_at(usage, "completion_tokens").value_or(0);
  out.total_tokens = count_at(usage, "total_tokens").value_or(out.input_tokens + out.output_tokens);
  if (const json::object *details = object_at(usage, "prompt_tokens_details"))
    out.cache_read_tokens = count_at(*details, "cached_tokens");
  if (const json::object *details = object_at(usage, "completion_tokens_details"))
    out.reasoning_tokens = count_at(*details, "reasoning_tokens");
  return out;
}

ChatTranslator::ChatTranslator(EventSink sink, StreamErrorMapper map_error, DeltaSink deltas)
    : sink_(sink),
      map_error_(std::move(map_error)),
      blocks_(std::move(sink), std::move(deltas), [this](amplifier::ContentBlock &block) {
        if (auto *thinking = std::get_if<amplifier::ThinkingBlock>(&block))
          thinking->extra[amplifier::ThinkingBlock::kReasoningFieldKey] = reasoning_field_;
        if (auto *text = std::get_if<amplifier::TextBlock>(&block); text && refusal_)
          text->extra["refusal"] = true;
        refusal_ = false;
      }) {}

void ChatTranslator::on_sse_data(std::string_view data) {
  const auto first = data.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && data.substr(first).starts_with("[DONE]")) {
    if (!finished_) finish();
    return;
  }
  if (finished_) fail_stream("data after [DONE]");
  json::error_code ec;
  const json::value *chunk = parser_.parse(data, ec);
  if (!chunk) fail_stream("invalid JSON in a stream chunk: " + ec.message());
  if (!chunk->is_object()) fail_stream("a stream chunk is not a JSON object");
  on_chunk(chunk->get_object());
}

void ChatTranslator::on_chunk(const json::object &chunk) {
  if (chunk.contains("error")) throw KernelException(map_error_(json::serialize(chunk)));
  if (auto id = string_at(chunk, "id"); !id.empty()) id_ = id;
  if (auto model = string_at(chunk, "model"); !model.empty()) model_ = model;
  if (const json::object *usage = object_at(chunk, "usage")) usage_ = usage_from(*usage);
  const json::array *choices = array_at(chunk, "choices");
  if (!choices) return;
  for (const json::value &choice : *choices) {
    const json::object *object = choice.if_object();
    // One answer is asked for: a server that sends more choices has the rest ignored.
    if (!object || count_at(*object, "index").value_or(0) != 0) continue;
    if (const json::object *delta = object_at(*object, "delta")) on_delta(*delta);
    if (auto reason = string_at(*object, "finish_reason"); !reason.empty()) finish_reason_ = reason;
  }
}

void ChatTranslator::on_delta(const json::object &delta) {
  for (std::string_view field : {"reasoning_content", "reasoning"}) {
    const std::string_view text = string_at(delta, field);
    if (text.empty()) continue;
    if (!blocks_.thinking_open()) {
      blocks_.end_open();
      reasoning_field_ = field;
    }
    blocks_.thinking(text);
  }
  blocks_.text(string_at(delta, "content"));
  if (auto refusal = string_at(delta, "refusal"); !refusal.empty()) {
    blocks_.text(refusal);
    refusal_ = true;
  }
  if (const json::array *calls = array_at(delta, "tool_calls"))
    for (std::size_t i = 0; i < calls->size(); ++i)
      if (const json::object *fragment = (*calls)[i].if_object()) tool_fragment(*fragment, i);
}

void ChatTranslator::tool_fragment(const json::object &fragment, std::size_t position) {
  // The index tells parallel calls apart; servers that leave it out send one call per
  // fragment position.
  const std::int64_t key =
      count_at(fragment, "index").value_or(static_cast<std::int64_t>(position));
  const json::object *function = object_at(fragment, "function");
  auto it = tool_calls_.find(key);
  if (it == tool_calls_.end()) {
    ToolCall call;
    call.id = string_at(fragment, "id");
    // Stable per response when the server gives none.
    if (call.id.empty()) call.id = "call_" + std::to_string(blocks_.next_index());
    call.name = function ? string_at(*function, "name") : std::string_view();
    call.index = blocks_.start_tool_call(call.id, call.name);
    it = tool_calls_.emplace(key, std::move(call)).first;
  } else if (function && it->second.name.empty()) {
    it->second.name = string_at(*function, "name");
  }
  if (!function) return;
  const std::string_view arguments = string_at(*function, "arguments");
  it->second.arguments += arguments;
  blocks_.tool_input(it->second.index, arguments);
}

void ChatTranslator::finish() {
  blocks_.end_open();
  for (auto &[key, call] : tool_calls_)
    blocks_.end_block(call.index, amplifier::provider::tool_call_from_arguments(
                                      std::move(call.id), std::move(call.name), call.arguments));
  if (usage_) sink_(stream::usage(*usage_));
  finished_ = true;
}

void ChatTranslator::on_completion(const json::object &completion) {
  if (completion.contains("error")) throw KernelException(map_error_(json::serialize(completion)));
  // The same steps as a stream: the message is one big delta.
  json::object chunk = completion;
  if (json::array *choices = chunk.contains("choices") ? chunk["choices"].if_array() : nullptr)
    for (json::value &choice : *choices)
      if (json::object *object = choice.if_object(); object && object->contains("message")) {
        json::value message = std::move((*object)["message"]);
        object->erase("message");
        (*object)["delta"] = std::move(message);
      }
  on_chunk(chunk);
  finish();
}

amplifier::ChatResponse ChatTranslator::take_response(std::string_view provider) {
  if (!finished_) fail_stream("the stream ended before data: [DONE]");
  amplifier::ChatResponse response;
  response.content = blocks_.take_content();
  response.tool_calls = amplifier::collect_tool_calls(response.content);
  response.usage = usage_;
  response.finish_reason = finish_reason_of(finish_reason_, !response.tool_calls.empty());
  response.metadata = json::object{{"provider", provider}, {"model", model_}, {"id", id_}};
  if (!finish_reason_.empty()) (*response.metadata)["vendor_finish_reason"] = finish_reason_;
  return response;
}

}  // namespace chat_completions

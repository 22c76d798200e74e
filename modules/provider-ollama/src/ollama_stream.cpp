#include "ollama_stream.hpp"

#include "ollama_config.hpp"

#include "amplifier/module_support/json_util.hpp"
#include "amplifier/provider/stream_failure.hpp"
#include "amplifier/stream.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <array>

namespace ollama {

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

// The durations of the done line (nanoseconds) as milliseconds, under their own names.
constexpr std::array kDurations = {
    std::string_view("total_duration"), std::string_view("load_duration"),
    std::string_view("prompt_eval_duration"), std::string_view("eval_duration")};

}  // namespace

OllamaTranslator::LineFields::LineFields(amplifier::JsonFieldReader &reader)
    : error(reader.declare({"error"})),
      done(reader.declare({"done"})),
      content(reader.declare({"message", "content"})),
      thinking(reader.declare({"message", "thinking"})),
      tool_calls(reader.declare({"message", "tool_calls"})) {}

OllamaTranslator::OllamaTranslator(EventSink sink, StreamErrorMapper map_error, DeltaSink deltas)
    : sink_(sink),
      map_error_(std::move(map_error)),
      blocks_(std::move(sink), std::move(deltas), [](amplifier::ContentBlock &block) {
        // Ollama's thinking goes back in its own `thinking` field.
        if (auto *thinking = std::get_if<amplifier::ThinkingBlock>(&block))
          thinking->extra[amplifier::ThinkingBlock::kReasoningFieldKey] = kReasoningField;
      }) {}

void OllamaTranslator::on_line(std::string_view line) {
  if (line.find_first_not_of(" \t\r\n") == std::string_view::npos) return;
  if (fast_line(line)) return;
  json::error_code ec;
  json::value chunk = json::parse(line, ec);
  if (ec) fail_stream("invalid JSON in a stream line: " + ec.message());
  if (!chunk.is_object()) fail_stream("a stream line is not a JSON object");
  on_chunk(chunk.get_object());
}

bool OllamaTranslator::fast_line(std::string_view line) {
  // Anything unusual (errors, tool calls, the done line, invalid JSON) takes the DOM path,
  // which also says what is wrong.
  using Kind = amplifier::JsonFieldReader::Kind;
  if (finished_ || !reader_.read(line) || reader_.has(fields_.error) ||
      reader_.has(fields_.tool_calls) || reader_.kind(fields_.done) != Kind::boolean ||
      reader_.boolean(fields_.done).value_or(true))
    return false;
  if (reader_.kind(fields_.thinking) == Kind::string)
    blocks_.thinking(reader_.string(fields_.thinking));
  if (reader_.kind(fields_.content) == Kind::string) blocks_.text(reader_.string(fields_.content));
  return true;
}

void OllamaTranslator::on_chunk(const json::object &chunk) {
  if (chunk.contains("error")) throw KernelException(map_error_(json::serialize(chunk)));
  if (finished_) fail_stream("a line after the done line");
  if (auto model = string_at(chunk, "model"); !model.empty()) model_ = model;
  if (const json::object *message = object_at(chunk, "message")) {
    blocks_.thinking(string_at(*message, "thinking"));
    blocks_.text(string_at(*message, "content"));
    if (const json::array *calls = array_at(*message, "tool_calls"))
      for (const json::value &call : *calls)
        if (const json::object *object = call.if_object()) tool_call(*object);
  }
  const json::value *done = chunk.if_contains("done");
  if (done && done->is_bool() && done->get_bool()) finish(chunk);
}

void OllamaTranslator::tool_call(const json::object &call) {
  saw_tool_call_ = true;
  const json::object *function = object_at(call, "function");
  std::string id(string_at(call, "id"));
  // The documented shape has none: stable per response.
  if (id.empty()) id = "call_" + std::to_string(blocks_.next_index());
  std::string name(function ? string_at(*function, "name") : std::string_view());
  const json::value *arguments = function ? function->if_contains("arguments") : nullptr;
  amplifier::ToolCallBlock block;
  if (arguments && arguments->is_string()) {
    // Some servers send text after all.
    block = amplifier::provider::tool_call_from_arguments(id, name,
                                                          std::string(arguments->get_string()));
  } else {
    block = amplifier::ToolCallBlock{id, name, {}, std::nullopt, {}};
    if (arguments && arguments->is_object()) block.input = arguments->get_object();
  }
  const std::size_t index = blocks_.start_tool_call(id, name);
  blocks_.tool_input(index, json::serialize(block.input));
  blocks_.end_block(index, std::move(block));
}

void OllamaTranslator::finish(const json::object &done) {
  blocks_.end_open();
  done_reason_ = string_at(done, "done_reason");
  const auto prompt = count_at(done, "prompt_eval_count");
  const auto eval = count_at(done, "eval_count");
  if (prompt || eval) {
    amplifier::Usage usage;
    usage.input_tokens = prompt.value_or(0);
    usage.output_tokens = eval.value_or(0);
    usage.total_tokens = usage.input_tokens + usage.output_tokens;
    usage_ = usage;
    sink_(stream::usage(usage));
  }
  for (std::string_view name : kDurations)
    if (auto nanoseconds = count_at(done, name))
      timings_[std::string(name.substr(0, name.size() - 9)) + "_ms"] =
          static_cast<double>(*nanoseconds) / 1e6;
  finished_ = true;
}

amplifier::ChatResponse OllamaTranslator::take_response(std::string_view provider) {
  if (!finished_) fail_stream("the stream ended before its done line");
  amplifier::ChatResponse response;
  response.content = blocks_.take_content();
  response.tool_calls = amplifier::collect_tool_calls(response.content);
  response.usage = usage_;
  if (saw_tool_call_)
    response.finish_reason = "tool_calls";
  else if (done_reason_ == "length")
    response.finish_reason = "length";
  else
    response.finish_reason = "stop";
  json::object metadata{{"provider", provider}, {"model", model_}};
  if (!done_reason_.empty()) metadata["done_reason"] = done_reason_;
  if (!timings_.empty()) metadata["timings"] = timings_;
  response.metadata = std::move(metadata);
  return response;
}

}  // namespace ollama

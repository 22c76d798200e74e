#include "ollama_stream.hpp"

#include "ollama_config.hpp"

#include "amplifier/module_support/json_util.hpp"
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

[[noreturn]] void stream_fail(std::string message) {
  throw KernelException(KernelError::make(ErrorKind::stream, std::move(message)));
}

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
    : sink_(std::move(sink)), map_error_(std::move(map_error)), deltas_(std::move(deltas)) {}

void OllamaTranslator::on_line(std::string_view line) {
  if (line.find_first_not_of(" \t\r\n") == std::string_view::npos) return;
  if (fast_line(line)) return;
  json::error_code ec;
  json::value chunk = json::parse(line, ec);
  if (ec) stream_fail("invalid JSON in a stream line: " + ec.message());
  if (!chunk.is_object()) stream_fail("a stream line is not a JSON object");
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
  if (reader_.kind(fields_.thinking) == Kind::string) thinking(reader_.string(fields_.thinking));
  if (reader_.kind(fields_.content) == Kind::string) text(reader_.string(fields_.content));
  return true;
}

void OllamaTranslator::thinking(std::string_view text) {
  if (text.empty()) return;
  open(Kind::thinking);
  open_text_ += text;
  deltas_(static_cast<std::uint32_t>(open_index_), AMP_DELTA_THINKING, text);
}

void OllamaTranslator::text(std::string_view text) {
  if (text.empty()) return;
  open(Kind::text);
  open_text_ += text;
  deltas_(static_cast<std::uint32_t>(open_index_), AMP_DELTA_TEXT, text);
}

void OllamaTranslator::on_chunk(const json::object &chunk) {
  if (chunk.contains("error")) throw KernelException(map_error_(json::serialize(chunk)));
  if (finished_) stream_fail("a line after the done line");
  if (auto model = string_at(chunk, "model"); !model.empty()) model_ = model;
  if (const json::object *message = object_at(chunk, "message")) {
    thinking(string_at(*message, "thinking"));
    text(string_at(*message, "content"));
    if (const json::array *calls = array_at(*message, "tool_calls"))
      for (const json::value &call : *calls)
        if (const json::object *object = call.if_object()) tool_call(*object);
  }
  const json::value *done = chunk.if_contains("done");
  if (done && done->is_bool() && done->get_bool()) finish(chunk);
}

void OllamaTranslator::open(Kind kind) {
  if (open_kind_ == kind) return;
  end_open_block();
  open_kind_ = kind;
  open_index_ = next_index_++;
  sink_(kind == Kind::thinking ? stream::thinking_start(open_index_)
                               : stream::text_start(open_index_));
}

void OllamaTranslator::end_open_block() {
  if (open_kind_ == Kind::none) return;
  amplifier::ContentBlock block;
  if (open_kind_ == Kind::thinking) {
    amplifier::ThinkingBlock thinking{std::move(open_text_), std::nullopt, std::nullopt, {}};
    thinking.extra["reasoning_field"] = kReasoningField;
    block = std::move(thinking);
  } else {
    block = amplifier::TextBlock{std::move(open_text_), std::nullopt, {}};
  }
  sink_(stream::block_end(open_index_, block));
  blocks_.emplace(open_index_, std::move(block));
  open_kind_ = Kind::none;
  open_text_.clear();
}

void OllamaTranslator::tool_call(const json::object &call) {
  end_open_block();
  saw_tool_call_ = true;
  const std::size_t index = next_index_++;
  const json::object *function = object_at(call, "function");
  std::string id(string_at(call, "id"));
  if (id.empty()) id = "call_" + std::to_string(index);  // the documented shape has none
  const std::string name(function ? string_at(*function, "name") : std::string_view());
  amplifier::ToolCallBlock block{id, name, {}, std::nullopt, {}};
  const json::value *arguments = function ? function->if_contains("arguments") : nullptr;
  if (arguments && arguments->is_object()) {
    block.input = arguments->get_object();
  } else if (arguments && arguments->is_string()) {
    // Some servers send text after all: parsed, or kept with the reason (see ToolCallBlock).
    json::error_code ec;
    json::value parsed = json::parse(arguments->get_string(), ec);
    if (!ec && parsed.is_object()) {
      block.input = std::move(parsed.get_object());
    } else {
      block.extra["arguments"] = *arguments;
      block.extra["arguments_error"] = "the arguments are not a JSON object";
    }
  }
  sink_(stream::tool_call_start(index, id, name));
  deltas_(static_cast<std::uint32_t>(index), AMP_DELTA_TOOL_INPUT, json::serialize(block.input));
  amplifier::ContentBlock ended = std::move(block);
  sink_(stream::block_end(index, ended));
  blocks_.emplace(index, std::move(ended));
}

void OllamaTranslator::finish(const json::object &done) {
  end_open_block();
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
  if (!finished_) stream_fail("the stream ended before its done line");
  amplifier::ChatResponse response;
  for (auto &[index, block] : blocks_) response.content.push_back(std::move(block));
  blocks_.clear();
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

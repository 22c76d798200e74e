#include "amplifier/provider/block_builder.hpp"

#include "amplifier/stream.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace amplifier::provider {

namespace stream = amplifier::stream;
namespace json = boost::json;

amplifier::ToolCallBlock tool_call_from_arguments(std::string id, std::string name,
                                                  const std::string &arguments) {
  amplifier::ToolCallBlock call{std::move(id), std::move(name), {}, std::nullopt, {}};
  json::error_code ec;
  json::value parsed = json::parse(arguments.empty() ? std::string_view("{}") : arguments, ec);
  if (!ec && parsed.is_object()) {
    call.input = std::move(parsed.get_object());
    if (!arguments.empty() && json::serialize(call.input) != arguments)
      call.extra["arguments"] = arguments;
  } else {
    call.extra["arguments"] = arguments;
    call.extra["arguments_error"] = ec ? "the arguments are not valid JSON (" + ec.message() + ")"
                                       : std::string("the arguments are JSON but not an object");
  }
  return call;
}

BlockBuilder::BlockBuilder(EventSink events, DeltaSink deltas, Decorate on_end)
    : events_(std::move(events)), deltas_(std::move(deltas)), on_end_(std::move(on_end)) {}

void BlockBuilder::open(Open kind) {
  if (open_ == kind) return;
  end_open();
  open_ = kind;
  open_index_ = next_index_++;
  events_(kind == Open::thinking ? stream::thinking_start(open_index_)
                                 : stream::text_start(open_index_));
}

void BlockBuilder::text(std::string_view piece) {
  if (piece.empty()) return;
  open(Open::text);
  open_text_ += piece;
  deltas_(static_cast<std::uint32_t>(open_index_), AMP_DELTA_TEXT, piece);
}

void BlockBuilder::thinking(std::string_view piece) {
  if (piece.empty()) return;
  open(Open::thinking);
  open_text_ += piece;
  deltas_(static_cast<std::uint32_t>(open_index_), AMP_DELTA_THINKING, piece);
}

void BlockBuilder::start_text() {
  end_open();
  open(Open::text);
}

void BlockBuilder::start_thinking() {
  end_open();
  open(Open::thinking);
}

void BlockBuilder::end_open(const Decorate &decorate) {
  if (open_ == Open::none) return;
  amplifier::ContentBlock block;
  if (open_ == Open::thinking)
    block = amplifier::ThinkingBlock{std::move(open_text_), std::nullopt, std::nullopt, {}};
  else
    block = amplifier::TextBlock{std::move(open_text_), std::nullopt, {}};
  if (on_end_) on_end_(block);
  if (decorate) decorate(block);
  open_ = Open::none;
  open_text_.clear();
  end_block(open_index_, std::move(block));
}

std::size_t BlockBuilder::start_tool_call(std::string_view id, std::string_view name) {
  end_open();
  const std::size_t index = next_index_++;
  events_(stream::tool_call_start(index, id, name));
  return index;
}

void BlockBuilder::tool_input(std::size_t index, std::string_view piece) {
  if (!piece.empty()) deltas_(static_cast<std::uint32_t>(index), AMP_DELTA_TOOL_INPUT, piece);
}

void BlockBuilder::end_block(std::size_t index, amplifier::ContentBlock block) {
  events_.block_end(index, block);
  ended_.emplace(index, std::move(block));
}

std::vector<amplifier::ContentBlock> BlockBuilder::take_content() {
  end_open();
  std::vector<amplifier::ContentBlock> content;
  content.reserve(ended_.size());
  for (auto &[index, block] : ended_) content.push_back(std::move(block));
  ended_.clear();
  return content;
}

}  // namespace amplifier::provider

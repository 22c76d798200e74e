// Content blocks <-> JSON.
#include "parsers.hpp"

#include <boost/json/array.hpp>

#include <type_traits>
#include <variant>

namespace amplifier {
namespace json = boost::json;
using detail::JsonPath;

namespace {

json::object typed_object(std::string_view type) {
  json::object out;
  out.emplace("type", type);
  return out;
}

// Visibility and unknown fields close every block's JSON.
template <class Block>
json::object finish_block(json::object out, const Block &block) {
  detail::put(out, "visibility", block.visibility);
  detail::put_extra(out, block.extra);
  return out;
}

std::optional<std::string> visibility_of(const json::object &object, const JsonPath &path) {
  return detail::optional_string(object, "visibility", path);
}

TextBlock parse_text(const json::object &object, const JsonPath &path) {
  return TextBlock{detail::required_string(object, "text", path, "text block"),
                   visibility_of(object, path),
                   detail::unknown_fields(object, {"type", "text", "visibility"})};
}

ThinkingBlock parse_thinking(const json::object &object, const JsonPath &path) {
  return ThinkingBlock{detail::required_string(object, "thinking", path, "thinking block"),
                       detail::optional_string(object, "signature", path),
                       visibility_of(object, path),
                       detail::unknown_fields(object, {"type", "thinking", "signature", "visibility"})};
}

RedactedThinkingBlock parse_redacted_thinking(const json::object &object, const JsonPath &path) {
  return RedactedThinkingBlock{
      detail::required_string(object, "data", path, "redacted_thinking block"),
      visibility_of(object, path), detail::unknown_fields(object, {"type", "data", "visibility"})};
}

// Reasoning parts are strings or arrays depending on the provider; anything else is a bug.
json::value reasoning_part(const json::object &object, std::string_view key, const JsonPath &path) {
  const json::value *part = detail::present(object, key);
  if (part == nullptr) return nullptr;
  if (!part->is_string() && !part->is_array())
    path.child(key).fail("expected a string or an array");
  return detail::owned_copy(*part);
}

ReasoningBlock parse_reasoning(const json::object &object, const JsonPath &path) {
  return ReasoningBlock{reasoning_part(object, "content", path),
                        reasoning_part(object, "summary", path), visibility_of(object, path),
                        detail::unknown_fields(object, {"type", "content", "summary", "visibility"})};
}

ToolCallBlock parse_tool_call_fields(const json::object &object, const JsonPath &path) {
  ToolCallBlock block;
  block.id = detail::required_string(object, "id", path, "tool_call block");
  block.name = detail::required_string(object, "name", path, "tool_call block");
  if (auto input = detail::optional_object(object, "input", path)) block.input = std::move(*input);
  block.visibility = visibility_of(object, path);
  block.extra = detail::unknown_fields(object, {"type", "id", "name", "input", "visibility"});
  return block;
}

ToolResultBlock parse_tool_result_block(const json::object &object, const JsonPath &path) {
  const json::value *output = object.if_contains("output");
  return ToolResultBlock{
      detail::required_string(object, "tool_call_id", path, "tool_result block"),
      output != nullptr ? detail::owned_copy(*output) : json::value(nullptr), visibility_of(object, path),
      detail::unknown_fields(object, {"type", "tool_call_id", "output", "visibility"})};
}

ImageBlock parse_image(const json::object &object, const JsonPath &path) {
  auto source = detail::optional_object(object, "source", path);
  if (!source) path.fail("image block has no source");
  return ImageBlock{std::move(*source), visibility_of(object, path),
                    detail::unknown_fields(object, {"type", "source", "visibility"})};
}

}  // namespace

std::string_view block_type(const ContentBlock &block) {
  return std::visit(
      [](const auto &typed) -> std::string_view {
        using Block = std::decay_t<decltype(typed)>;
        if constexpr (std::is_same_v<Block, UnknownBlock>) {
          const json::value *type = typed.raw.if_contains("type");
          return type != nullptr && type->is_string() ? std::string_view(type->get_string())
                                                      : std::string_view();
        } else {
          return Block::kType;
        }
      },
      block);
}

json::object to_json(const TextBlock &block) {
  json::object out = typed_object(TextBlock::kType);
  out.emplace("text", block.text);
  return finish_block(std::move(out), block);
}

json::object to_json(const ThinkingBlock &block) {
  json::object out = typed_object(ThinkingBlock::kType);
  out.emplace("thinking", block.thinking);
  detail::put(out, "signature", block.signature);
  return finish_block(std::move(out), block);
}

json::object to_json(const RedactedThinkingBlock &block) {
  json::object out = typed_object(RedactedThinkingBlock::kType);
  out.emplace("data", block.data);
  return finish_block(std::move(out), block);
}

json::object to_json(const ReasoningBlock &block) {
  json::object out = typed_object(ReasoningBlock::kType);
  if (!block.content.is_null()) out.emplace("content", block.content);
  if (!block.summary.is_null()) out.emplace("summary", block.summary);
  return finish_block(std::move(out), block);
}

json::object to_json(const ToolCallBlock &block) {
  json::object out = typed_object(ToolCallBlock::kType);
  out.emplace("id", block.id);
  out.emplace("name", block.name);
  out.emplace("input", block.input);
  return finish_block(std::move(out), block);
}

json::object to_json(const ToolResultBlock &block) {
  json::object out = typed_object(ToolResultBlock::kType);
  out.emplace("tool_call_id", block.tool_call_id);
  out.emplace("output", block.output);
  return finish_block(std::move(out), block);
}

json::object to_json(const ImageBlock &block) {
  json::object out = typed_object(ImageBlock::kType);
  out.emplace("source", block.source);
  return finish_block(std::move(out), block);
}

json::object to_json(const UnknownBlock &block) { return block.raw; }

json::object to_json(const ContentBlock &block) {
  return std::visit([](const auto &typed) { return to_json(typed); }, block);
}

namespace detail {

ContentBlock parse_content_block(const json::value &value, const JsonPath &path) {
  return parse_content_block(expect_object(value, path), path);
}

ContentBlock parse_content_block(const json::object &object, const JsonPath &path) {
  const json::value *type_value = present(object, "type");
  if (type_value == nullptr) path.fail("content block has no type");
  const std::string type = read_string(*type_value, path.child("type"));
  if (type == TextBlock::kType) return parse_text(object, path);
  if (type == ThinkingBlock::kType) return parse_thinking(object, path);
  if (type == RedactedThinkingBlock::kType) return parse_redacted_thinking(object, path);
  if (type == ReasoningBlock::kType) return parse_reasoning(object, path);
  if (type == ToolCallBlock::kType) return parse_tool_call_fields(object, path);
  if (type == ToolResultBlock::kType) return parse_tool_result_block(object, path);
  if (type == ImageBlock::kType) return parse_image(object, path);
  return UnknownBlock{owned_copy(object)};  // a newer block type: carried along untouched
}

ToolCallBlock parse_tool_call(const json::value &value, const JsonPath &path) {
  const json::object &object = expect_object(value, path);
  if (const json::value *type = present(object, "type")) {
    if (read_string(*type, path.child("type")) != ToolCallBlock::kType)
      path.child("type").fail("expected a tool_call block");
  }
  return parse_tool_call_fields(object, path);
}

std::vector<ContentBlock> parse_content_blocks(const json::value &value, const JsonPath &path) {
  return parse_array<ContentBlock>(value, path, [](const json::value &item, const JsonPath &at) {
    return parse_content_block(item, at);
  });
}

json::array content_blocks_to_json(const std::vector<ContentBlock> &blocks) {
  json::array out;
  out.reserve(blocks.size());
  for (const auto &block : blocks) out.emplace_back(to_json(block));
  return out;
}

}  // namespace detail

template <>
ContentBlock from_json<ContentBlock>(const json::value &json) {
  return detail::parse_content_block(json, JsonPath());
}

template <>
ToolCallBlock from_json<ToolCallBlock>(const json::value &json) {
  return detail::parse_tool_call(json, JsonPath());
}

}  // namespace amplifier

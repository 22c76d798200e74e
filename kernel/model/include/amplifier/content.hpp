// Content blocks of the unified message format: {"type":"text","text":"..."} and friends.
//
// Every block keeps `visibility` and the fields it does not know in `extra`, so a block read
// from JSON and written back is the same document (strings byte for byte). Blocks of a type
// this version does not know survive as UnknownBlock.
#pragma once
#include "amplifier/model_base.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace amplifier {

struct TextBlock {
  static constexpr std::string_view kType = "text";
  std::string text;
  std::optional<std::string> visibility;
  boost::json::object extra;
};

// Thinking from a provider that signs nothing (a Chat Completions server's reasoning_content)
// says so with extra.reasoning_field, the field its text travels in: context managers replay
// such a block to the provider that wrote it, and drop other unsigned thinking.
struct ThinkingBlock {
  static constexpr std::string_view kType = "thinking";
  // The extra key of the field name an unsigned provider's thinking travels back in.
  static constexpr std::string_view kReasoningFieldKey = "reasoning_field";
  std::string thinking;
  // Absent (never null) when the provider gave none: Anthropic rejects `signature: null`.
  std::optional<std::string> signature;
  std::optional<std::string> visibility;
  boost::json::object extra;
};

struct RedactedThinkingBlock {
  static constexpr std::string_view kType = "redacted_thinking";
  std::string data;
  std::optional<std::string> visibility;
  boost::json::object extra;
};

// OpenAI-style reasoning items. `content` and `summary` are arrays or strings depending on
// the provider, so they stay JSON; null means absent.
struct ReasoningBlock {
  static constexpr std::string_view kType = "reasoning";
  boost::json::value content;
  boost::json::value summary;
  std::optional<std::string> visibility;
  boost::json::object extra;
};

// A provider that cannot read the model's arguments as a JSON object still returns the call:
// input {}, extra.arguments the raw text, extra.arguments_error why. Orchestrators answer such
// a call with an error result the model can read instead of running the tool.
struct ToolCallBlock {
  static constexpr std::string_view kType = "tool_call";
  std::string id;
  std::string name;
  boost::json::object input;
  std::optional<std::string> visibility;
  boost::json::object extra;
};

struct ToolResultBlock {
  static constexpr std::string_view kType = "tool_result";
  std::string tool_call_id;
  boost::json::value output;  // any JSON
  std::optional<std::string> visibility;
  boost::json::object extra;
};

struct ImageBlock {
  static constexpr std::string_view kType = "image";
  boost::json::object source;
  std::optional<std::string> visibility;
  boost::json::object extra;
};

// A block whose type this version does not know: the whole object, re-emitted unchanged.
struct UnknownBlock {
  boost::json::object raw;  // includes "type"
};

using ContentBlock = std::variant<TextBlock, ThinkingBlock, RedactedThinkingBlock,
                                  ReasoningBlock, ToolCallBlock, ToolResultBlock, ImageBlock,
                                  UnknownBlock>;

// The block's "type" string ("text", "tool_call", ... or the unknown block's own type).
std::string_view block_type(const ContentBlock &block);

// Null when the block is not of type T; saves callers a std::get_if spelling.
template <class T>
const T *block_as(const ContentBlock &block) {
  return std::get_if<T>(&block);
}

boost::json::object to_json(const TextBlock &block);
boost::json::object to_json(const ThinkingBlock &block);
boost::json::object to_json(const RedactedThinkingBlock &block);
boost::json::object to_json(const ReasoningBlock &block);
boost::json::object to_json(const ToolCallBlock &block);
boost::json::object to_json(const ToolResultBlock &block);
boost::json::object to_json(const ImageBlock &block);
boost::json::object to_json(const UnknownBlock &block);
boost::json::object to_json(const ContentBlock &block);

// Any block type; unknown types become UnknownBlock, known types are checked field by field.
template <>
ContentBlock from_json<ContentBlock>(const boost::json::value &json);
// A tool_call block alone ("type" may be omitted), as found in ChatResponse.tool_calls.
template <>
ToolCallBlock from_json<ToolCallBlock>(const boost::json::value &json);

}  // namespace amplifier

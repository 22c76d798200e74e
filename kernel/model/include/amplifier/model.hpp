// The unified message model: messages, tool specs, chat requests and responses, tool results.
//
// Conversions are lossless: from_json<T> keeps unknown fields in `extra` and to_json writes
// them back; optional fields absent from the input stay absent in the output.
#pragma once
#include "amplifier/content.hpp"
#include "amplifier/model_base.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace amplifier {

enum class Role { system, developer, user, assistant, tool, function /* legacy OpenAI */ };

std::string_view to_string(Role role);
// Throws ModelError naming the unknown role.
Role role_from_string(std::string_view name);

// A message's content is either a plain string or an array of blocks; which one it was is
// part of the message (providers treat them differently), so both are kept.
using MessageContent = std::variant<std::string, std::vector<ContentBlock>>;

struct Message {
  Role role = Role::user;
  MessageContent content;
  std::optional<std::string> name;
  std::optional<std::string> tool_call_id;
  std::optional<boost::json::object> metadata;
  boost::json::object extra;

  bool has_block_content() const { return std::holds_alternative<std::vector<ContentBlock>>(content); }
  // The text of a string content, or the concatenated text blocks of a block content.
  std::string text() const;
};

struct ToolSpec {
  std::string name;
  std::optional<std::string> description;
  std::optional<boost::json::object> parameters;  // JSON Schema of the input
  boost::json::object extra;
};

// Token counts. The three totals are always written (total defaults to input + output when
// the JSON lacks it); the detail counts stay absent when unknown.
struct Usage {
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::int64_t total_tokens = 0;
  std::optional<std::int64_t> reasoning_tokens;
  std::optional<std::int64_t> cache_read_tokens;
  std::optional<std::int64_t> cache_write_tokens;
  boost::json::object extra;
};

// A feature the provider could not honour, recorded instead of silently dropped.
struct Degradation {
  std::string feature;
  std::string reason;
  std::optional<std::string> fallback;
  boost::json::object extra;
};

struct ChatRequest {
  std::vector<Message> messages;
  std::optional<std::vector<ToolSpec>> tools;
  std::optional<boost::json::value> response_format;  // "text" or {"type":"json_schema",...}
  std::optional<double> temperature;
  std::optional<double> top_p;
  std::optional<std::int64_t> max_output_tokens;
  std::optional<bool> stream;
  std::optional<std::string> conversation_id;
  std::optional<boost::json::object> metadata;
  std::optional<std::string> model;
  std::optional<boost::json::value> tool_choice;  // "auto" | "none" | "required" | {...}
  std::optional<boost::json::value> stop;         // a string or an array of strings
  std::optional<std::string> reasoning_effort;
  std::optional<double> timeout;  // seconds
  boost::json::object extra;
};

// `content` is always written; `tool_calls` and `degradations` only when non-empty
// (absent and empty mean the same).
// A field added here goes into to_json_text's shell too (json_text.cpp).
struct ChatResponse {
  std::vector<ContentBlock> content;
  std::vector<ToolCallBlock> tool_calls;  // the tool_call blocks of `content`, in order
  std::optional<Usage> usage;
  std::vector<Degradation> degradations;
  std::optional<std::string> finish_reason;
  std::optional<boost::json::object> metadata;
  boost::json::object extra;

  // The concatenated text blocks.
  std::string text() const;
  // The same, taken out of the blocks (which keep empty texts): one text block's string is
  // moved, not copied, which for a long answer saves a copy of it.
  std::string take_text();
};

// The tool_call blocks among `blocks`, in order (what ChatResponse::tool_calls should hold).
std::vector<ToolCallBlock> collect_tool_calls(const std::vector<ContentBlock> &blocks);

struct ToolError {
  std::string message;
  boost::json::object extra;  // e.g. "type"
};

// The terminal payload of a tool call: {"success", "output", "error"?}.
struct ToolResult {
  bool success = true;
  boost::json::value output;  // any JSON; written even when null
  std::optional<ToolError> error;
  boost::json::object extra;
};

boost::json::object to_json(const Message &message);
boost::json::array to_json(const std::vector<Message> &messages);
boost::json::object to_json(const ToolSpec &spec);
boost::json::object to_json(const Usage &usage);
boost::json::object to_json(const Degradation &degradation);
boost::json::object to_json(const ChatRequest &request);
boost::json::object to_json(const ChatResponse &response);
boost::json::object to_json(const ToolError &error);
boost::json::object to_json(const ToolResult &result);

template <>
Message from_json<Message>(const boost::json::value &json);
template <>
std::vector<Message> from_json<std::vector<Message>>(const boost::json::value &json);
template <>
ToolSpec from_json<ToolSpec>(const boost::json::value &json);
template <>
Usage from_json<Usage>(const boost::json::value &json);
template <>
Degradation from_json<Degradation>(const boost::json::value &json);
template <>
ChatRequest from_json<ChatRequest>(const boost::json::value &json);
template <>
ChatResponse from_json<ChatResponse>(const boost::json::value &json);
template <>
ToolError from_json<ToolError>(const boost::json::value &json);
template <>
ToolResult from_json<ToolResult>(const boost::json::value &json);

}  // namespace amplifier

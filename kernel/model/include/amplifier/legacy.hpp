// Messages as older transcripts stored them, and their one conversion to the unified shape.
//
// Older transcripts (the reference implementation's, and OpenAI-style logs) keep an assistant
// turn as `content: string | null` plus a separate `tool_calls` list, and a tool result as a
// tool message whose content is a string. Whatever reads stored messages parses them as
// StoredMessage, which admits both shapes, and converts with to_unified() right there: no code
// after that boundary ever sees the old shape, and writers only ever produce the unified one.
#pragma once
#include "amplifier/model.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <vector>

namespace amplifier {

// One item of a legacy `tool_calls` list. Accepted spellings:
//   {"id", "name", "arguments"}                                  (the reference's own)
//   {"id", "tool", "arguments"}                                  (older still)
//   {"id", "type": "function", "function": {"name", "arguments"}} (OpenAI chat completions)
// `arguments` is an object or a string holding JSON, kept here exactly as found.
struct LegacyToolCall {
  std::string id;
  std::string name;
  boost::json::value arguments;  // an object, a string, or null when absent
  boost::json::object extra;     // other fields, carried over to the tool_call block
};

// A message as read from disk, in either shape.
struct StoredMessage {
  Role role = Role::user;
  // nullopt when the content is JSON null or absent (only the legacy shape allows that).
  std::optional<MessageContent> content;
  std::vector<LegacyToolCall> tool_calls;
  bool has_tool_calls_field = false;  // `tool_calls` was present, even as null or []
  std::optional<std::string> name;
  std::optional<std::string> tool_call_id;
  std::optional<boost::json::object> metadata;
  boost::json::object extra;

  // True when the message uses the legacy shape: a `tool_calls` field, null or absent
  // content, or a tool message whose content is a plain string.
  bool is_legacy() const;
};

// Parses either shape; throws ModelError naming the path of the first problem.
template <>
StoredMessage from_json<StoredMessage>(const boost::json::value &json);

// The unified message. A unified-shape message passes through unchanged. A legacy one gets:
// - assistant (or any non-tool role): its text as the first block (null or "" content gives
//   no text block, never an empty one), then one tool_call block per `tool_calls` item, in
//   order, ids kept; `arguments` becomes the block's input (a JSON string is parsed; a string
//   that is not a JSON object leaves the input empty and is kept verbatim in the block's
//   "arguments" field, so nothing is lost). Calls already present as blocks are not doubled.
// - tool: one tool_result block {tool_call_id, output: the string content}; the message keeps
//   its tool_call_id. A legacy tool message without tool_call_id cannot be paired: ModelError.
Message to_unified(StoredMessage stored);

// The boundary in one call: parses `json` in either shape and returns the unified message as
// JSON. A unified-shape message comes back as the same document (validated, not rebuilt), so
// what was stored survives byte for byte; a legacy one is converted by to_unified().
// `converted`, when given, is set to whether a conversion happened.
boost::json::value read_stored_message(const boost::json::value &json, bool *converted = nullptr);
// The same for a document the caller gives up: a unified-shape message is moved through, not
// copied (a long answer is then not in memory twice).
boost::json::value read_stored_message(boost::json::value &&json, bool *converted = nullptr);

}  // namespace amplifier

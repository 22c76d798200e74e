// Builders for the messages an agent loop stores or sends, in the unified message format.
#pragma once
#include "amplifier/model.hpp"
#include "amplifier/orchestrator/hook_outcome.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <string_view>
#include <vector>

namespace amplifier::orchestrator {

// {"role": role, "content": text}.
boost::json::object text_message(std::string_view role, std::string_view text);

// The assistant message for a response: its content blocks exactly as the provider sent them
// (thinking signatures byte for byte) and its metadata. A tool call listed in `tool_calls`
// but missing from the content is appended as a tool_call block, so every tool result that
// follows has its call in the transcript.
boost::json::object assistant_message(boost::json::object response_json,
                                      const std::vector<ToolCallBlock> &tool_calls);

// Adds ephemeral injections to the messages of one request (never to the context):
// append_to_last_tool_result ones extend the last tool result's output when the last message
// is a tool message; the others merge into the last message when it has the same role and
// plain-text content, and otherwise become a message of their own. A message that holds
// ephemeral text says where it starts: metadata.ephemeral_from, the byte of its string
// content (0 for a message that is all ephemeral), so a provider that caches prefixes never
// puts a breakpoint after it (provider-anthropic).
inline constexpr std::string_view kEphemeralFrom = "ephemeral_from";
void apply_ephemeral(boost::json::array &messages, const std::vector<Injection> &injections);

// The reminder sent with the final call when max_iterations is reached.
std::string_view loop_limit_reminder();

}  // namespace amplifier::orchestrator

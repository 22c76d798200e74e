// Unified conversation -> the `system` parameter and the `messages` array of the Anthropic
// Messages API, including the repairs the API insists on:
//   - every tool_use must be answered by a tool_result in the very next (user) message, so a
//     call without a result gets a synthetic error result and a result without its call is
//     dropped;
//   - roles must alternate, so consecutive messages of one role are merged.
#pragma once
#include "amplifier/provider/call_reports.hpp"
#include "amplifier/provider/degradation_log.hpp"
#include "amplifier/provider/tool_results.hpp"

#include "amplifier/model.hpp"

#include <boost/json/array.hpp>

#include <optional>
#include <string>
#include <vector>

namespace provider_anthropic {

using amplifier::provider::DegradationLog;

// The text of the synthetic result given to a tool call that has none (provider-core's).
inline constexpr std::string_view kMissingToolResultText = amplifier::provider::kMissingToolOutput;

using amplifier::provider::RepairedToolCall;

struct ConversationMapping {
  // Every system message's text, joined by a blank line; nullopt when there was none.
  std::optional<std::string> system;
  // Anthropic messages {role: user|assistant, content: [blocks]}, roles alternating.
  boost::json::array messages;
  // Tool calls that got a synthetic error result (announce provider:tool_sequence_repaired).
  std::vector<RepairedToolCall> repaired_tool_calls;
  // tool_call ids of results dropped because no preceding tool call matches (log a warning).
  std::vector<std::string> dropped_tool_results;
};

// Maps the conversation; what cannot be sent (a thinking block without signature, foreign
// reasoning blocks, unknown block types) is left out and noted in `degradations`.
// Developer messages become one <context> user message placed before the conversation.
ConversationMapping map_conversation(const std::vector<amplifier::Message> &messages,
                                     DegradationLog &degradations);

}  // namespace provider_anthropic

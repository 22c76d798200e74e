// Structural checks of a conversation before it is sent to a provider.
#pragma once
#include "amplifier/model.hpp"

#include <string>
#include <vector>

namespace amplifier {

// Every problem found, each as "<path>: <problem>" with paths like "messages[3].content[1]":
// a tool_call block without id or name, a tool message without tool_call_id, a tool_result
// block without tool_call_id, and a tool result (tool message or tool_result block) with no
// tool call of that id earlier in the conversation. Empty when the conversation is valid.
std::vector<std::string> validate_conversation(const std::vector<Message> &messages);

// Throws ModelError listing every problem (joined by "; ") when there is any.
void ensure_valid_conversation(const std::vector<Message> &messages);

}  // namespace amplifier

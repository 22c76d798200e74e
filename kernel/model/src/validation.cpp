// Conversation checks: the tool-call bookkeeping providers reject with an HTTP 400.
#include "amplifier/validation.hpp"

#include <string_view>
#include <unordered_set>

namespace amplifier {
namespace {

std::string message_path(std::size_t message_index) {
  return "messages[" + std::to_string(message_index) + "]";
}

std::string block_path(std::size_t message_index, std::size_t block_index) {
  return message_path(message_index) + ".content[" + std::to_string(block_index) + "]";
}

// Walks the conversation once, remembering the tool call ids made so far; a result may only
// answer a call that came before it.
class ConversationChecker {
 public:
  std::vector<std::string> run(const std::vector<Message> &messages) {
    for (std::size_t i = 0; i < messages.size(); ++i) check_message(messages[i], i);
    return std::move(problems_);
  }

 private:
  void check_message(const Message &message, std::size_t index) {
    if (message.role == Role::tool) check_tool_message(message, index);
    const auto *blocks = std::get_if<std::vector<ContentBlock>>(&message.content);
    if (blocks == nullptr) return;
    for (std::size_t j = 0; j < blocks->size(); ++j) {
      if (const auto *call = block_as<ToolCallBlock>((*blocks)[j])) check_call(*call, index, j);
      if (const auto *result = block_as<ToolResultBlock>((*blocks)[j]))
        check_result_block(*result, index, j);
    }
  }

  void check_tool_message(const Message &message, std::size_t index) {
    if (!message.tool_call_id || message.tool_call_id->empty()) {
      report(message_path(index), "tool message has no tool_call_id");
    } else if (!known_calls_.contains(*message.tool_call_id)) {
      report(message_path(index), unanswerable("tool message", *message.tool_call_id));
    }
  }

  void check_call(const ToolCallBlock &call, std::size_t index, std::size_t block) {
    if (call.id.empty()) report(block_path(index, block), "tool_call block has no id");
    if (call.name.empty()) report(block_path(index, block), "tool_call block has no name");
    if (!call.id.empty()) known_calls_.insert(call.id);
  }

  void check_result_block(const ToolResultBlock &result, std::size_t index, std::size_t block) {
    if (result.tool_call_id.empty()) {
      report(block_path(index, block), "tool_result block has no tool_call_id");
    } else if (!known_calls_.contains(result.tool_call_id)) {
      report(block_path(index, block), unanswerable("tool_result block", result.tool_call_id));
    }
  }

  static std::string unanswerable(std::string_view what, std::string_view id) {
    return std::string(what) + " answers tool call '" + std::string(id) +
           "', but no earlier tool_call has that id";
  }

  void report(const std::string &path, std::string_view problem) {
    problems_.push_back(path + ": " + std::string(problem));
  }

  // Views into the messages being checked, which outlive the checker.
  std::unordered_set<std::string_view> known_calls_;
  std::vector<std::string> problems_;
};

}  // namespace

std::vector<std::string> validate_conversation(const std::vector<Message> &messages) {
  return ConversationChecker().run(messages);
}

void ensure_valid_conversation(const std::vector<Message> &messages) {
  const std::vector<std::string> problems = validate_conversation(messages);
  if (problems.empty()) return;
  std::string joined;
  for (const auto &problem : problems) {
    if (!joined.empty()) joined += "; ";
    joined += problem;
  }
  throw ModelError({}, "invalid conversation: " + joined);
}

}  // namespace amplifier

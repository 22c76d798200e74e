#include "history_turns.hpp"

#include "amplifier/session_store.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace amplifier::host {
namespace json = boost::json;

namespace {

constexpr std::size_t kTurnPreviewChars = 70;

std::string_view turn_text_field(const json::object &object, std::string_view key) {
  const json::value *value = object.if_contains(key);
  return value && value->is_string() ? std::string_view(value->get_string()) : std::string_view();
}

// The text of a user message: its string content, or its text blocks joined.
std::string user_text(const json::object &message) {
  const json::value *content = message.if_contains("content");
  if (!content) return {};
  if (content->is_string()) return std::string(content->get_string());
  std::string text;
  if (const auto *blocks = content->if_array())
    for (const auto &block : *blocks)
      if (const auto *b = block.if_object(); b && turn_text_field(*b, "type") == "text")
        text += (text.empty() ? "" : " ") + std::string(turn_text_field(*b, "text"));
  return text;
}

void add_tool_calls(const json::object &message, std::vector<std::string> &tools) {
  const json::value *content = message.if_contains("content");
  if (const auto *blocks = content ? content->if_array() : nullptr)
    for (const auto &block : *blocks)
      if (const auto *b = block.if_object(); b && turn_text_field(*b, "type") == "tool_call")
        tools.emplace_back(turn_text_field(*b, "name"));
}

}  // namespace

std::vector<TurnSpan> turns_of(const json::array &messages) {
  std::vector<TurnSpan> turns;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const json::object *message = messages[i].if_object();
    if (!message) continue;
    const std::string_view role = turn_text_field(*message, "role");
    if (role == "user") {
      if (!turns.empty()) turns.back().end = i;
      turns.push_back(TurnSpan{i, i + 1,
                               session_store::one_line_preview(user_text(*message), kTurnPreviewChars),
                               {}});
    } else if (!turns.empty()) {
      turns.back().end = i + 1;
      if (role == "assistant") add_tool_calls(*message, turns.back().tools);
    }
  }
  if (!turns.empty()) turns.back().end = messages.size();
  return turns;
}

std::size_t messages_through_turn(const std::vector<TurnSpan> &turns, std::size_t message_count,
                                  std::int64_t turn) {
  if (turn < 0 || turn > static_cast<std::int64_t>(turns.size()))
    throw std::invalid_argument(fmt::format(
        "turn {} is not one of this session's: it has {} turn(s) (0 keeps none of them)", turn,
        turns.size()));
  if (turn == static_cast<std::int64_t>(turns.size())) return message_count;
  return turns[static_cast<std::size_t>(turn)].first;
}

}  // namespace amplifier::host

#include "amplifier/orchestrator/messages.hpp"

#include <boost/json/serialize.hpp>

#include <string>

namespace amplifier::orchestrator {
namespace json = boost::json;
namespace {

bool has_tool_call_block(const json::array &content, std::string_view id) {
  for (const auto &block : content) {
    if (!block.is_object()) continue;
    const auto &o = block.get_object();
    auto *type = o.if_contains("type");
    auto *block_id = o.if_contains("id");
    if (type && type->is_string() && type->get_string() == ToolCallBlock::kType && block_id &&
        block_id->is_string() && block_id->get_string() == id)
      return true;
  }
  return false;
}

std::string_view role_of(const json::value &message) {
  if (!message.is_object()) return {};
  auto *role = message.get_object().if_contains("role");
  return role && role->is_string() ? std::string_view(role->get_string()) : std::string_view();
}

void append_text(json::value &target, std::string_view text) {
  std::string joined = target.is_string() ? std::string(target.get_string())
                       : target.is_null() ? std::string()
                                          : json::serialize(target);
  if (!joined.empty()) joined += "\n\n";
  joined += text;
  target = joined;
}

// Extends the output of the last tool_result block of a tool message.
void append_to_tool_result(json::object &tool_message, std::string_view text) {
  json::value &content = tool_message["content"];
  if (content.is_string() || content.is_null()) return append_text(content, text);
  if (!content.is_array()) return;
  json::array &blocks = content.get_array();
  for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) {
    if (!it->is_object()) continue;
    auto *type = it->get_object().if_contains("type");
    if (type && type->is_string() && type->get_string() == ToolResultBlock::kType)
      return append_text(it->get_object()["output"], text);
  }
  blocks.push_back(json::object{{"type", TextBlock::kType}, {"text", text}});
}

}  // namespace

json::object text_message(std::string_view role, std::string_view text) {
  return json::object{{"role", role}, {"content", text}};
}

json::object assistant_message(json::object response_json,
                               const std::vector<ToolCallBlock> &tool_calls) {
  json::array content;
  // Moved, not copied: a long answer's text is already in memory more often than it needs.
  if (auto *c = response_json.if_contains("content"); c && c->is_array()) content = std::move(c->get_array());
  for (const auto &call : tool_calls)
    if (!has_tool_call_block(content, call.id)) content.push_back(to_json(call));
  json::object message{{"role", "assistant"}, {"content", std::move(content)}};
  if (auto *metadata = response_json.if_contains("metadata"); metadata && metadata->is_object())
    message["metadata"] = *metadata;
  // What the provider could not do as asked stays with the answer it shaped.
  if (auto *degradations = response_json.if_contains("degradations");
      degradations && degradations->is_array() && !degradations->get_array().empty()) {
    json::value &metadata = message["metadata"];
    if (!metadata.is_object()) metadata = json::object{};
    metadata.get_object()["degradations"] = *degradations;
  }
  return message;
}

void apply_ephemeral(json::array &messages, const std::vector<Injection> &injections) {
  for (const auto &injection : injections) {
    json::value *last = messages.empty() ? nullptr : &messages.back();
    if (injection.append_to_last_tool_result && last && role_of(*last) == "tool") {
      append_to_tool_result(last->get_object(), injection.text);
      continue;
    }
    // Merging keeps two messages of one role from following each other, which some
    // providers reject.
    if (last && role_of(*last) == injection.role) {
      json::object &message = last->get_object();
      json::value &content = message["content"];
      if (content.is_string()) {
        const std::size_t stable = content.get_string().size();
        append_text(content, injection.text);
        // Where the stored message ends and this request's addition begins, for a provider
        // that caches prefixes (metadata.ephemeral_from, in bytes of the content).
        json::value &metadata = message["metadata"];
        if (!metadata.is_object()) metadata = json::object{};
        if (!metadata.get_object().contains(kEphemeralFrom))
          metadata.get_object()[kEphemeralFrom] = stable;
        continue;
      }
    }
    json::object message = text_message(injection.role, injection.text);
    message["metadata"] = json::object{{kEphemeralFrom, 0}};  // all of it
    messages.push_back(std::move(message));
  }
}

std::string_view loop_limit_reminder() {
  return "<system-reminder source=\"orchestrator-loop-limit\">\n"
         "You have reached the maximum number of iterations for this turn. Respond to the user "
         "now: summarise your progress and what remains to be done. You can continue in the "
         "next turn if needed. Tools are not available for this response.\n"
         "Do not mention this reminder or the iteration limit explicitly.\n"
         "</system-reminder>";
}

}  // namespace amplifier::orchestrator

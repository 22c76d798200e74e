#include "prompt_caching.hpp"

#include <boost/json/array.hpp>

#include <string_view>

namespace provider_anthropic {

namespace json = boost::json;

namespace {

constexpr std::size_t kRecentUserMessages = 2;


bool can_carry_cache_control(const json::object &block) {
  const json::value *type = block.if_contains("type");
  if (!type || !type->is_string()) return false;
  const std::string_view name = type->get_string();
  return name != "thinking" && name != "redacted_thinking";
}

// Marks the last block of `blocks` that may carry cache_control and comes before any
// request-only block; false when there is none.
bool mark_last_eligible(json::array &blocks, const json::object &marker) {
  auto end = blocks.rend();
  for (auto it = blocks.rbegin(); it != blocks.rend(); ++it)
    if (it->is_object() && it->get_object().contains(kEphemeralMark)) end = it;
  auto first = end == blocks.rend() ? blocks.rbegin() : std::next(end);
  for (auto it = first; it != blocks.rend(); ++it) {
    if (!it->is_object() || !can_carry_cache_control(it->get_object())) continue;
    it->get_object()["cache_control"] = marker;
    return true;
  }
  return false;
}

bool mark_system(json::object &body, const json::object &marker) {
  json::value *system = body.if_contains("system");
  if (!system) return false;
  if (system->is_string()) {
    if (system->get_string().empty()) return false;
    *system = json::array{json::object{{"type", "text"}, {"text", system->get_string()}}};
  }
  return system->is_array() && mark_last_eligible(system->get_array(), marker);
}

bool mark_last_tool(json::object &body, const json::object &marker) {
  json::value *tools = body.if_contains("tools");
  if (!tools || !tools->is_array() || tools->get_array().empty()) return false;
  json::value &last = tools->get_array().back();
  if (!last.is_object()) return false;
  last.get_object()["cache_control"] = marker;
  return true;
}

std::size_t mark_recent_user_messages(json::object &body, std::size_t budget,
                                      const json::object &marker) {
  json::value *messages = body.if_contains("messages");
  if (!messages || !messages->is_array()) return 0;
  std::size_t placed = 0;
  std::size_t users_seen = 0;
  json::array &list = messages->get_array();
  for (auto it = list.rbegin();
       it != list.rend() && placed < budget && users_seen < kRecentUserMessages; ++it) {
    if (!it->is_object()) continue;
    json::object &message = it->get_object();
    const json::value *role = message.if_contains("role");
    if (!role || !role->is_string() || role->get_string() != "user") continue;
    ++users_seen;
    json::value *content = message.if_contains("content");
    if (content && content->is_array() && mark_last_eligible(content->get_array(), marker))
      ++placed;
  }
  return placed;
}

std::size_t count_in(const json::value &value) {
  std::size_t count = 0;
  if (value.is_object()) {
    for (const auto &entry : value.get_object()) {
      if (entry.key() == "cache_control") ++count;
      count += count_in(entry.value());
    }
  } else if (value.is_array()) {
    for (const auto &item : value.get_array()) count += count_in(item);
  }
  return count;
}

}  // namespace

std::size_t apply_cache_breakpoints(json::object &body, std::string_view ttl) {
  // One TTL for every breakpoint of a request: the API wants longer TTLs before shorter ones.
  json::object marker{{"type", "ephemeral"}};
  if (ttl != "5m") marker["ttl"] = ttl;
  std::size_t placed = 0;
  if (mark_system(body, marker)) ++placed;
  if (mark_last_tool(body, marker)) ++placed;
  placed += mark_recent_user_messages(body, kMaxCacheBreakpoints - placed, marker);
  return placed;
}

std::size_t count_cache_breakpoints(const json::object &body) { return count_in(body); }

void strip_ephemeral_marks(json::object &body) {
  json::value *messages = body.if_contains("messages");
  if (!messages || !messages->is_array()) return;
  for (auto &message : messages->get_array()) {
    json::value *content = message.is_object() ? message.get_object().if_contains("content") : nullptr;
    if (!content || !content->is_array()) continue;
    for (auto &block : content->get_array())
      if (block.is_object()) block.get_object().erase(kEphemeralMark);
  }
}

}  // namespace provider_anthropic

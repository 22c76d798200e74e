#include "amplifier/child_sessions.hpp"

#include "call_registry.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <stdexcept>

namespace amplifier {
namespace json = boost::json;

namespace {

// Children nest only this deep, whatever a request asks: a runaway delegation chain stops.
constexpr std::int64_t kDepthCeiling = 16;

std::string read_string(const json::object &o, std::string_view key, bool required) {
  const json::value *v = o.if_contains(key);
  if (!v || v->is_null()) {
    if (required) throw std::invalid_argument(fmt::format("'{}' is required", key));
    return {};
  }
  if (!v->is_string()) throw std::invalid_argument(fmt::format("'{}' must be a string", key));
  return std::string(v->as_string());
}

std::int64_t read_count(const json::object &o, std::string_view key, std::int64_t fallback,
                        std::int64_t low, std::int64_t high) {
  const json::value *v = o.if_contains(key);
  if (!v || v->is_null()) return fallback;
  if (!v->is_int64() && !v->is_uint64())
    throw std::invalid_argument(fmt::format("'{}' must be a whole number", key));
  const std::int64_t n = v->is_int64()
                             ? v->as_int64()
                             : std::int64_t(std::min<std::uint64_t>(v->as_uint64(), high + 1));
  if (n < low || n > high)
    throw std::invalid_argument(fmt::format("'{}' must be between {} and {}", key, low, high));
  return n;
}

std::vector<std::string> read_names(const json::object &o, std::string_view key) {
  std::vector<std::string> names;
  const json::value *v = o.if_contains(key);
  if (!v || v->is_null()) return names;
  if (!v->is_array())
    throw std::invalid_argument(fmt::format("'{}' must be a list of module ids", key));
  for (const auto &item : v->as_array()) {
    if (!item.is_string())
      throw std::invalid_argument(fmt::format("'{}' must be a list of module ids", key));
    names.emplace_back(item.as_string());
  }
  return names;
}

SpawnRequest::ContextDepth read_depth(const json::object &o) {
  const std::string depth = read_string(o, "context_depth", false);
  if (depth.empty() || depth == "none") return SpawnRequest::ContextDepth::none;
  if (depth == "recent") return SpawnRequest::ContextDepth::recent;
  if (depth == "all") return SpawnRequest::ContextDepth::all;
  throw std::invalid_argument(
      fmt::format("'context_depth' must be none, recent or all, not '{}'", depth));
}

std::string_view role_of(const json::value &message) {
  const json::value *role = message.is_object() ? message.as_object().if_contains("role") : nullptr;
  return role && role->is_string() ? std::string_view(role->as_string()) : std::string_view();
}

// The ids of the tool calls an assistant message makes.
std::vector<std::string> tool_call_ids(const json::value &message) {
  std::vector<std::string> ids;
  const json::value *content = message.as_object().if_contains("content");
  if (!content || !content->is_array()) return ids;
  for (const auto &block : content->as_array()) {
    if (!block.is_object()) continue;
    const auto &b = block.as_object();
    const json::value *type = b.if_contains("type");
    const json::value *id = b.if_contains("id");
    if (type && type->is_string() && type->as_string() == "tool_call" && id && id->is_string())
      ids.emplace_back(id->as_string());
  }
  return ids;
}

// Where the history stops being whole: at the last assistant message one of whose tool calls
// has no result after it (the parent is still running that call, its delegate among them).
std::size_t complete_prefix(const json::array &messages) {
  std::set<std::string> answered;
  for (std::size_t i = messages.size(); i-- > 0;) {
    const json::value &m = messages[i];
    if (!m.is_object()) continue;
    if (role_of(m) == "tool") {
      if (const json::value *id = m.as_object().if_contains("tool_call_id"); id && id->is_string())
        answered.emplace(id->as_string());
      continue;
    }
    if (role_of(m) != "assistant") continue;
    for (const auto &id : tool_call_ids(m))
      if (!answered.count(id)) return i;  // everything from here on is cut
  }
  return messages.size();
}

// The index of the first message of the last `turns` user turns.
std::size_t recent_start(const json::array &messages, std::size_t end, int turns) {
  std::size_t start = end;
  int seen = 0;
  for (std::size_t i = end; i-- > 0 && seen < turns;) {
    if (role_of(messages[i]) == "user") {
      start = i;
      ++seen;
    }
  }
  return seen == 0 ? end : start;
}

bool is_instruction(const json::value &message) {
  const auto role = role_of(message);
  return role == "system" || role == "developer";
}

}  // namespace

SpawnRequest parse_spawn_request(std::string_view request_json) {
  json::error_code ec;
  json::value parsed = json::parse(request_json, ec, {}, kernel_parse_options());
  if (ec || !parsed.is_object()) throw std::invalid_argument("the request is not a JSON object");
  const json::object &o = parsed.as_object();
  SpawnRequest request;
  request.agent = read_string(o, "agent", false);
  if (request.agent.empty()) request.agent = "self";
  request.instruction = read_string(o, "instruction", true);
  if (request.instruction.find_first_not_of(" \t\r\n") == std::string::npos)
    throw std::invalid_argument("'instruction' is empty");
  request.context_depth = read_depth(o);
  request.recent_turns = int(read_count(o, "recent_turns", 3, 1, 1000));
  request.resume_session_id = read_string(o, "session_id", false);
  request.exclude_tools = read_names(o, "exclude_tools");
  request.exclude_hooks = read_names(o, "exclude_hooks");
  request.max_depth = int(read_count(o, "max_depth", 1, 0, kDepthCeiling));
  return request;
}

std::string child_initial_messages(std::string_view parent_messages_json,
                                   const SpawnRequest &request, std::string_view instructions) {
  json::array out;
  if (!instructions.empty())
    out.push_back(json::object{{"role", "system"}, {"content", instructions}});
  if (request.context_depth != SpawnRequest::ContextDepth::none && !parent_messages_json.empty()) {
    json::error_code ec;
    json::value parsed = json::parse(parent_messages_json, ec, {}, kernel_parse_options());
    if (ec || !parsed.is_array())
      throw std::runtime_error("the parent's context did not return a JSON array of messages");
    const json::array &messages = parsed.as_array();
    const std::size_t end = complete_prefix(messages);
    const std::size_t start = request.context_depth == SpawnRequest::ContextDepth::all
                                  ? 0
                                  : recent_start(messages, end, request.recent_turns);
    // An agent brings its own instructions; "self" keeps the parent's.
    const bool keep_instructions = request.agent == "self";
    for (std::size_t i = 0; i < end; ++i) {
      const json::value &m = messages[i];
      if (is_instruction(m) ? (keep_instructions && instructions.empty()) : i >= start)
        out.push_back(m);
    }
  }
  return json::serialize(out);
}

}  // namespace amplifier

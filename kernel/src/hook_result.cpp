// HookResult <-> JSON in Amplifier's field names. Python hooks serialise optional fields as
// null, so null always means "the default".
#include "amplifier/hooks.hpp"

#include <boost/json.hpp>

#include <array>
#include <stdexcept>
#include <string>

namespace amplifier {
namespace json = boost::json;

namespace {

constexpr std::array kActionNames = {
    std::pair{HookAction::Continue, std::string_view("continue")},
    std::pair{HookAction::Deny, std::string_view("deny")},
    std::pair{HookAction::Modify, std::string_view("modify")},
    std::pair{HookAction::InjectContext, std::string_view("inject_context")},
    std::pair{HookAction::AskUser, std::string_view("ask_user")},
};

[[noreturn]] void fail(std::string_view field, std::string_view problem) {
  throw std::invalid_argument("invalid HookResult field '" + std::string(field) + "': " +
                              std::string(problem));
}

std::string_view kind_name(const json::value &v) {
  switch (v.kind()) {
    case json::kind::null: return "null";
    case json::kind::bool_: return "a boolean";
    case json::kind::int64:
    case json::kind::uint64:
    case json::kind::double_: return "a number";
    case json::kind::string: return "a string";
    case json::kind::array: return "an array";
    case json::kind::object: return "an object";
  }
  return "unknown";
}

std::string read_string(std::string_view field, const json::value &v) {
  if (!v.is_string()) fail(field, "expected a string, got " + std::string(kind_name(v)));
  return std::string(v.get_string());
}

// Like read_string, but the value must be one of `allowed`.
template <std::size_t N>
std::string read_choice(std::string_view field, const json::value &v,
                        const std::array<std::string_view, N> &allowed) {
  std::string text = read_string(field, v);
  for (auto choice : allowed)
    if (text == choice) return text;
  std::string expected;
  for (auto choice : allowed) expected += (expected.empty() ? "" : ", ") + std::string(choice);
  fail(field, "'" + text + "' is not one of " + expected);
}

bool read_bool(std::string_view field, const json::value &v) {
  if (!v.is_bool()) fail(field, "expected a boolean, got " + std::string(kind_name(v)));
  return v.get_bool();
}

double read_seconds(std::string_view field, const json::value &v) {
  if (!v.is_number()) fail(field, "expected a number of seconds, got " + std::string(kind_name(v)));
  const double seconds = v.to_number<double>();
  if (!(seconds >= 0)) fail(field, "must not be negative");
  return seconds;
}

std::vector<std::string> read_string_list(std::string_view field, const json::value &v) {
  if (!v.is_array()) fail(field, "expected an array of strings, got " + std::string(kind_name(v)));
  std::vector<std::string> items;
  for (const auto &item : v.get_array()) items.push_back(read_string(field, item));
  return items;
}

constexpr std::array<std::string_view, 3> kRoles = {"system", "user", "assistant"};
constexpr std::array<std::string_view, 2> kApprovalDefaults = {"allow", "deny"};
constexpr std::array<std::string_view, 3> kMessageLevels = {"info", "warning", "error"};

ContextInjection read_injection(const json::value &v) {
  if (!v.is_object()) fail("injections", "each entry must be an object");
  ContextInjection injection;
  for (const auto &[key, value] : v.get_object()) {
    if (key == "text") injection.text = read_string("injections.text", value);
    else if (key == "role") injection.role = read_choice("injections.role", value, kRoles);
    else if (key == "ephemeral") injection.ephemeral = read_bool("injections.ephemeral", value);
    else if (key == "append_to_last_tool_result")
      injection.append_to_last_tool_result = read_bool("injections.append_to_last_tool_result", value);
    else fail("injections", "unknown key '" + std::string(key) + "'");
  }
  return injection;
}

json::object injection_to_json(const ContextInjection &injection) {
  json::object out;
  out["text"] = injection.text;
  out["role"] = injection.role;
  out["ephemeral"] = injection.ephemeral;
  out["append_to_last_tool_result"] = injection.append_to_last_tool_result;
  return out;
}

// Applies one field of a handler's result. Returns false for a field HookResult does not know.
bool read_field(HookResult &r, std::string_view key, const json::value &value) {
  if (key == "action") r.action = hook_action_from_string(read_string(key, value));
  else if (key == "data") r.data = value;
  else if (key == "reason") r.reason = read_string(key, value);
  else if (key == "context_injection") r.context_injection = read_string(key, value);
  else if (key == "context_injection_role") r.context_injection_role = read_choice(key, value, kRoles);
  else if (key == "ephemeral") r.ephemeral = read_bool(key, value);
  else if (key == "append_to_last_tool_result") r.append_to_last_tool_result = read_bool(key, value);
  else if (key == "approval_prompt") r.approval_prompt = read_string(key, value);
  else if (key == "approval_options") r.approval_options = read_string_list(key, value);
  else if (key == "approval_timeout") r.approval_timeout = read_seconds(key, value);
  else if (key == "approval_default") r.approval_default = read_choice(key, value, kApprovalDefaults);
  else if (key == "suppress_output") r.suppress_output = read_bool(key, value);
  else if (key == "user_message") r.user_message = read_string(key, value);
  else if (key == "user_message_level") r.user_message_level = read_choice(key, value, kMessageLevels);
  else if (key == "injections") {
    if (!value.is_array()) fail(key, "expected an array, got " + std::string(kind_name(value)));
    for (const auto &item : value.get_array()) r.injections.push_back(read_injection(item));
  } else return false;
  return true;
}

}  // namespace

std::string_view to_string(HookAction action) {
  for (const auto &[value, name] : kActionNames)
    if (value == action) return name;
  return "unknown";
}

HookAction hook_action_from_string(std::string_view name) {
  for (const auto &[value, known] : kActionNames)
    if (known == name) return value;
  throw std::invalid_argument("unknown hook action '" + std::string(name) +
                              "' (expected continue, deny, modify, inject_context or ask_user)");
}

HookResult HookResult::from_json(const json::value &v) {
  HookResult result;
  if (v.is_null()) return result;
  if (!v.is_object())
    throw std::invalid_argument("a HookResult must be a JSON object, got " +
                                std::string(kind_name(v)));
  for (const auto &[key, value] : v.get_object()) {
    if (value.is_null()) continue;  // Python's "field: None": the default
    if (!read_field(result, key, value)) result.extra.emplace(key, value);
  }
  return result;
}

json::object HookResult::to_json() const {
  const HookResult defaults;
  json::object out;
  out["action"] = to_string(action);
  if (!data.is_null()) out["data"] = data;
  if (!reason.empty()) out["reason"] = reason;
  if (!context_injection.empty()) out["context_injection"] = context_injection;
  if (context_injection_role != defaults.context_injection_role)
    out["context_injection_role"] = context_injection_role;
  if (ephemeral) out["ephemeral"] = true;
  if (append_to_last_tool_result) out["append_to_last_tool_result"] = true;
  if (!approval_prompt.empty()) out["approval_prompt"] = approval_prompt;
  if (!approval_options.empty()) {
    json::array options;
    for (const auto &option : approval_options) options.emplace_back(option);
    out["approval_options"] = std::move(options);
  }
  if (approval_timeout != defaults.approval_timeout) out["approval_timeout"] = approval_timeout;
  if (approval_default != defaults.approval_default) out["approval_default"] = approval_default;
  if (suppress_output) out["suppress_output"] = true;
  if (!user_message.empty()) out["user_message"] = user_message;
  if (user_message_level != defaults.user_message_level)
    out["user_message_level"] = user_message_level;
  if (!injections.empty()) {
    json::array list;
    for (const auto &injection : injections) list.emplace_back(injection_to_json(injection));
    out["injections"] = std::move(list);
  }
  // Unknown fields go back as they came, unless they would shadow a known one.
  for (const auto &[key, value] : extra)
    if (!out.contains(key)) out.emplace(key, value);
  return out;
}

}  // namespace amplifier

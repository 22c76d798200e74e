#include "amplifier/orchestrator/hook_outcome.hpp"

#include "amplifier/module_support/json_util.hpp"

#include <boost/json/serialize.hpp>

#include <stdexcept>

namespace amplifier::orchestrator {
namespace json = boost::json;
namespace {

std::string string_field(const json::object &o, std::string_view key, std::string fallback = {}) {
  auto *v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : std::move(fallback);
}

bool bool_field(const json::object &o, std::string_view key) {
  auto *v = o.if_contains(key);
  return v && v->is_bool() && v->get_bool();
}

Injection read_injection(const json::object &o) {
  Injection injection;
  injection.text = string_field(o, "text");
  injection.role = string_field(o, "role", "system");
  injection.ephemeral = bool_field(o, "ephemeral");
  injection.append_to_last_tool_result = bool_field(o, "append_to_last_tool_result");
  return injection;
}

// The combined result lists every injection in `injections`; a single handler's result may
// only carry the flat context_injection fields.
std::vector<Injection> read_injections(const json::object &o) {
  std::vector<Injection> out;
  if (auto *list = o.if_contains("injections"); list && list->is_array()) {
    for (const auto &item : list->get_array())
      if (item.is_object()) out.push_back(read_injection(item.get_object()));
    return out;
  }
  std::string text = string_field(o, "context_injection");
  if (text.empty()) return out;
  Injection injection;
  injection.text = std::move(text);
  injection.role = string_field(o, "context_injection_role", "system");
  injection.ephemeral = bool_field(o, "ephemeral");
  injection.append_to_last_tool_result = bool_field(o, "append_to_last_tool_result");
  out.push_back(std::move(injection));
  return out;
}

}  // namespace

bool HookOutcome::denies() const {
  return action == "deny" || (action == "ask_user" && approval_default != "allow");
}

std::string HookOutcome::deny_reason() const {
  if (action == "ask_user")
    return (approval_prompt.empty() ? std::string("approval required") : approval_prompt) +
           " (nobody was asked; denied by default)";
  return reason.empty() ? std::string("no reason given") : reason;
}

std::string HookOutcome::end_reason() const {
  const std::string &why = !end_turn_reason.empty() ? end_turn_reason : reason;
  return "Stopped by hook: " + (why.empty() ? std::string("no reason given") : why);
}

HookOutcome parse_hook_outcome(std::string_view hook_result_json) {
  HookOutcome outcome;
  if (hook_result_json.empty()) return outcome;  // nothing written means continue
  json::object o = module_support::parse_json_object(hook_result_json, "hook result");
  outcome.action = string_field(o, "action", "continue");
  outcome.reason = string_field(o, "reason");
  if (auto *data = o.if_contains("data")) outcome.data = std::move(*data);  // may be megabytes
  outcome.injections = read_injections(o);
  outcome.approval_prompt = string_field(o, "approval_prompt");
  outcome.approval_default = string_field(o, "approval_default", "deny");
  if (auto *options = o.if_contains("approval_options"); options && options->is_array())
    for (const auto &option : options->get_array())
      if (option.is_string()) outcome.approval_options.emplace_back(option.get_string());
  if (auto *timeout = o.if_contains("approval_timeout"); timeout && timeout->is_number())
    outcome.approval_timeout = timeout->to_number<double>();
  if (const json::value *input = o.if_contains("updated_tool_input"); input && input->is_object())
    outcome.updated_tool_input = input->get_object();
  if (const json::value *end = o.if_contains("end_turn")) {
    outcome.end_turn = (end->is_bool() && end->get_bool()) || end->is_string();
    if (end->is_string()) outcome.end_turn_reason = std::string(end->get_string());
  }
  return outcome;
}

HookOutcome emit_event(const amp::sdk::Host &host, std::string_view event,
                       const json::object &data) {
  // Nobody listening: the combined result is "continue", and there is nothing to render.
  if (!host.has_hook_handlers(event)) return HookOutcome{};
  return parse_hook_outcome(host.emit(event, json::serialize(data)));
}

namespace {
std::string spliced_text(const SplicedPayload &build) {
  SplicedJson spliced;
  json::value shell = build(spliced);
  return spliced.render(shell, [&] {
    SplicedJson plain(SplicedJson::Mode::plain);
    return json::serialize(build(plain));
  });
}
}  // namespace

HookOutcome emit_spliced(const amp::sdk::Host &host, std::string_view event,
                         const SplicedPayload &build) {
  if (!host.has_hook_handlers(event)) return HookOutcome{};
  return parse_hook_outcome(host.emit(event, spliced_text(build)));
}

void notify_spliced(const amp::sdk::Host &host, std::string_view event,
                    const SplicedPayload &build) noexcept {
  try {
    if (!host.has_hook_handlers(event)) return;
    if (host.notify(event, spliced_text(build)) != AMP_OK)
      host.warn("could not emit " + std::string(event));
  } catch (const std::exception &e) {
    host.warn("could not emit " + std::string(event) + ": " + e.what());
  } catch (...) {
    host.warn("could not emit " + std::string(event));
  }
}

void notify_with(const amp::sdk::Host &host, std::string_view event,
                 const std::function<json::object()> &build) noexcept {
  try {
    if (!host.has_hook_handlers(event)) return;
    if (host.notify(event, json::serialize(build())) != AMP_OK)
      host.warn("could not emit " + std::string(event));
  } catch (const std::exception &e) {
    host.warn("could not emit " + std::string(event) + ": " + e.what());
  } catch (...) {
  }
}

void sort_injections(const HookOutcome &outcome, std::vector<Injection> &to_store,
                     std::vector<Injection> &for_next_request) {
  for (const auto &injection : outcome.injections) {
    if (injection.text.empty()) continue;
    (injection.ephemeral ? for_next_request : to_store).push_back(injection);
  }
}

}  // namespace amplifier::orchestrator

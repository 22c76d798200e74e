// hooks-approval: decides on every tool:pre whether the call may run, from rules
// (approval_rules.hpp) and, for "ask", from the user through host.request_approval.
//
// It registers on tool:pre at priority -1000, so it runs before the usual hooks and its deny
// short-circuits them. For "ask" it emits approval:required, asks with
//   {prompt, options: [allow_once, allow_always, deny], timeout_seconds, default: "deny",
//    tool_name, details: {input, tool_call_id, rule}}
// and emits approval:granted or approval:denied. A rule's deny emits approval:denied too.
// "allow_always" lets the same tool with the same command (or any input, for a tool without a
// command) through for the rest of the session without asking.
//
// Every decision is one JSON line in the audit file:
//   {"time","session","tool","tool_call_id","input","decision","reason","source"}
// where decision is allow | deny | allow_once | allow_always and source is rule (a rule or
// default_action decided), user (the user answered, now or with an earlier allow_always),
// timeout (nobody answered in time) or no-terminal (the host had nobody to ask).
//
// The host's answer may say its source ({"decision","reason","source"}); without one, the
// reason tells: "timed out", "timeout" or "no answer within" mean timeout; "no interactive
// user", "no terminal", "non-interactive" or "cannot ask" mean no-terminal (as the host's,
// the kernel's and the SDK's fallbacks word it); anything else is the user's answer.
//
// THREADS: tool:pre may be emitted for parallel tool calls at once. Questions are asked one at
// a time (the second waits, then sees an allow_always the first answer gave); the remembered
// allows and the audit file have their own locks.
#include "approval_rules.hpp"
#include "audit_log.hpp"

#include "amplifier/module_support/config_reader.hpp"
#include "amplifier/module_support/session_facts.hpp"
#include "amplifier/module_support/json_util.hpp"
#include "amplifier/module_support/paths.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <ctime>
#include <mutex>
#include <set>

namespace hooks_approval {
namespace {

namespace json = boost::json;
namespace ms = amplifier::module_support;
using ms::now_iso8601;
using ms::session_id_of;

constexpr const char *kHandlerName = "hooks-approval";
// Before every usual hook: a deny here must stop the call before anything else reacts to it.
constexpr std::int32_t kHandlerPriority = -1000;
constexpr std::size_t kMaxInputSummaryBytes = 500;

struct ApprovalConfig {
  double timeout_seconds = 300;
  std::string audit_log = "~/.amplifier/approvals.jsonl";
};

std::string string_field(const json::object &o, std::string_view key) {
  const auto *v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string cut(const std::string &text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  return text.substr(0, ms::utf8_prefix_length(text, max_bytes)) + "...";
}

// What one tool:pre is about.
struct ToolCall {
  std::string tool;
  std::string call_id;
  json::value input;
  std::optional<std::string> command;  // input.command, when it is a string

  static ToolCall from_event(std::string_view data_json) {
    const json::object data = ms::parse_json_object(data_json, "tool:pre data");
    ToolCall call;
    call.tool = string_field(data, "tool_name");
    call.call_id = string_field(data, "tool_call_id");
    if (const auto *input = data.if_contains("tool_input")) call.input = *input;
    if (const auto *o = call.input.if_object())
      if (const auto *c = o->if_contains("command"); c && c->is_string()) call.command = std::string(c->get_string());
    return call;
  }

  // The command, or the input as compact JSON, cut for the audit line and the prompt.
  std::string input_summary() const {
    return cut(command ? *command : json::serialize(input), kMaxInputSummaryBytes);
  }
};

// One decision, as audited and reported.
struct Verdict {
  bool allowed = false;
  std::string decision;  // allow | deny | allow_once | allow_always
  std::string reason;
  std::string source;    // rule | user | timeout | no-terminal
};

std::string source_of(const json::object &answer) {
  const std::string declared = string_field(answer, "source");
  if (declared == "user" || declared == "timeout" || declared == "no-terminal") return declared;
  const std::string reason = lowercase(string_field(answer, "reason"));
  for (const char *phrase : {"timed out", "timeout", "no answer within"})
    if (reason.find(phrase) != std::string::npos) return "timeout";
  for (const char *phrase : {"no interactive", "no terminal", "non-interactive", "cannot ask",
                             "request failed", "asking for approval failed"})
    if (reason.find(phrase) != std::string::npos) return "no-terminal";
  return "user";
}

class ApprovalHook final : public amp::sdk::HookModule {
 public:
  ApprovalHook(amp::sdk::Host host, std::string_view config_json)
      : ApprovalHook(host, ms::ConfigReader(config_json, "hooks-approval config")) {}

 private:
  ApprovalHook(amp::sdk::Host host, ms::ConfigReader reader)
      : HookModule(host),
        rules_(reader),
        config_(read_config(reader)),
        session_id_(session_id_of(host)),
        audit_(ms::expand_path_template(config_.audit_log, session_id_),
               [host](const std::string &message) { host.warn(message); }) {
    reader.warn_unknown_keys(host);
    // Last: once registered, the host may call the handler with `this` at any time.
    const amp_status status =
        host.hook_register("tool:pre", kHandlerPriority, kHandlerName, &ApprovalHook::on_tool_pre, this);
    if (status != AMP_OK)
      throw std::runtime_error("hooks-approval: registering the tool:pre handler failed (status " +
                               std::to_string(static_cast<int>(status)) + ")");
  }

  static ApprovalConfig read_config(ms::ConfigReader &reader) {
    ApprovalConfig config;
    config.timeout_seconds = reader.get_number("timeout_seconds", config.timeout_seconds, 1, 86'400);
    config.audit_log = reader.get_string("audit_log", config.audit_log);
    if (config.audit_log.empty()) throw reader.error("audit_log", "must not be empty");
    return config;
  }

  static amp_status on_tool_pre(void *self, amp_str, amp_str data_json, amp_writer *result) noexcept {
    auto *hook = static_cast<ApprovalHook *>(self);
    try {
      const std::string answer = hook->decide(ToolCall::from_event(amp::sdk::from_amp(data_json)));
      amp::sdk::write_to(result, answer);
      return AMP_OK;
    } catch (const std::exception &e) {
      // Failing closed: a call this hook could not judge does not run.
      hook->host().error(std::string("hooks-approval: ") + e.what());
      amp::sdk::write_to(result, json::serialize(json::object{
                                     {"action", "deny"},
                                     {"reason", std::string("approval check failed: ") + e.what()}}));
      return AMP_OK;
    }
  }

  // The HookResult JSON for one call ("" for continue).
  std::string decide(const ToolCall &call) {
    Verdict verdict;
    if (remembered(call)) {
      verdict = {true, "allow", "allowed always earlier in this session", "user"};
    } else {
      const Decision rule = rules_.decide(call.tool, call.command);
      if (rule.action == Action::ask) verdict = ask(call, rule);
      else verdict = by_rule(call, rule);
    }
    audit(call, verdict);
    if (verdict.allowed) return {};
    return json::serialize(json::object{{"action", "deny"}, {"reason", verdict.reason}});
  }

  Verdict by_rule(const ToolCall &call, const Decision &rule) {
    if (rule.action == Action::allow) return {true, "allow", "allowed by " + rule.because, "rule"};
    Verdict verdict{false, "deny", "denied by hooks-approval " + rule.because, "rule"};
    announce("approval:denied", call, verdict);
    return verdict;
  }

  Verdict ask(const ToolCall &call, const Decision &rule) {
    // One question at a time, so an allow_always given to the first of two parallel calls
    // spares the user the second question.
    std::lock_guard lock(ask_mutex_);
    if (remembered(call)) return {true, "allow", "allowed always earlier in this session", "user"};
    const std::string prompt = prompt_for(call);
    emit("approval:required", json::object{{"tool_name", call.tool},
                                           {"tool_call_id", call.call_id},
                                           {"prompt", prompt},
                                           {"input", call.input_summary()},
                                           {"rule", rule.because}});
    const json::object request{
        {"prompt", prompt},
        {"options", json::array{"allow_once", "allow_always", "deny"}},
        {"timeout_seconds", timeout_json()},
        {"default", "deny"},
        {"tool_name", call.tool},
        {"details", {{"input", call.input}, {"tool_call_id", call.call_id}, {"rule", rule.because}}}};
    const Verdict verdict = interpret(host().request_approval(json::serialize(request)));
    if (verdict.decision == "allow_always") remember(call);
    announce(verdict.allowed ? "approval:granted" : "approval:denied", call, verdict);
    return verdict;
  }

  Verdict interpret(const std::string &answer_json) const {
    json::object answer;
    try {
      answer = ms::parse_json_object(answer_json, "approval answer");
    } catch (const std::invalid_argument &e) {
      return {false, "deny", std::string("the approval answer was unreadable: ") + e.what(), "no-terminal"};
    }
    const std::string decision = string_field(answer, "decision");
    const std::string source = source_of(answer);
    const std::string reason = string_field(answer, "reason");
    if (decision == "allow_once" || decision == "allow_always")
      return {true, decision, reason.empty() ? "approved by the user" : reason, source};
    return {false, "deny", denial_reason(decision, source, reason), source};
  }

  std::string denial_reason(const std::string &decision, const std::string &source,
                            const std::string &reason) const {
    if (source == "timeout")
      return "no answer to the approval request within " + std::to_string(static_cast<long>(config_.timeout_seconds)) +
             " s; denied by default";
    if (source == "no-terminal")
      return "approval is required but there is nobody to ask (" + reason +
             "); denied by default. A hooks-approval rule can allow this tool.";
    if (decision != "deny") return "unrecognised approval answer '" + decision + "'; denied";
    // The host's own wording ("denied by the user") needs no repeating.
    if (reason.empty() || reason.starts_with("denied")) return "denied by the user";
    return "denied by the user: " + reason;
  }

  // Whole seconds as an integer (what hosts expect to read), a fraction as it is.
  json::value timeout_json() const {
    const double seconds = config_.timeout_seconds;
    if (seconds == std::floor(seconds)) return json::value(static_cast<std::int64_t>(seconds));
    return json::value(seconds);
  }

  static std::string prompt_for(const ToolCall &call) {
    if (call.command) return "Allow " + call.tool + " to run: " + call.input_summary();
    return "Allow " + call.tool + " with input " + call.input_summary();
  }

  static std::string memory_key(const ToolCall &call) {
    return call.tool + '\0' + (call.command ? *call.command : std::string());
  }

  bool remembered(const ToolCall &call) {
    std::lock_guard lock(memory_mutex_);
    return always_allowed_.contains(memory_key(call));
  }

  void remember(const ToolCall &call) {
    std::lock_guard lock(memory_mutex_);
    always_allowed_.insert(memory_key(call));
  }

  void announce(std::string_view event, const ToolCall &call, const Verdict &verdict) {
    emit(event, json::object{{"tool_name", call.tool},
                             {"tool_call_id", call.call_id},
                             {"decision", verdict.decision},
                             {"reason", verdict.reason},
                             {"source", verdict.source}});
  }

  void emit(std::string_view event, const json::object &data) {
    try {
      host().emit(event, json::serialize(data));
    } catch (const std::exception &e) {
      host().warn("hooks-approval: emitting " + std::string(event) + " failed: " + e.what());
    }
  }

  void audit(const ToolCall &call, const Verdict &verdict) {
    audit_.append(json::serialize(json::object{{"time", now_iso8601()},
                                               {"session", session_id_},
                                               {"tool", call.tool},
                                               {"tool_call_id", call.call_id},
                                               {"input", call.input_summary()},
                                               {"decision", verdict.decision},
                                               {"reason", verdict.reason},
                                               {"source", verdict.source}}));
  }

  const RuleSet rules_;
  const ApprovalConfig config_;
  const std::string session_id_;
  AuditLog audit_;
  std::mutex ask_mutex_;
  std::mutex memory_mutex_;
  std::set<std::string> always_allowed_;  // guarded by memory_mutex_
};

}  // namespace
}  // namespace hooks_approval

AMP_DEFINE_MODULE(hooks_approval::ApprovalHook, "hooks-approval", "0.1.0",
                  "Allows, denies or asks the user about each tool call, by rules; audits every decision");

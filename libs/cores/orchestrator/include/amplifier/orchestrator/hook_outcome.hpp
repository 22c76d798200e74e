// What an orchestrator needs from the combined HookResult that amp_host_api.emit writes back.
#pragma once
#include "amplifier/json_text.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace amplifier::orchestrator {

// One context injection requested by a hook.
struct Injection {
  std::string text;
  std::string role = "system";  // system | user | assistant
  bool ephemeral = false;       // for the next request only, never stored
  bool append_to_last_tool_result = false;
};

struct HookOutcome {
  std::string action = "continue";  // continue | deny | modify | inject_context | ask_user
  std::string reason;
  boost::json::value data;  // the final payload after every modify (null when absent)
  std::vector<Injection> injections;
  std::string approval_prompt;
  std::vector<std::string> approval_options;  // empty: allow_once, allow_always, deny
  double approval_timeout = 300.0;            // seconds
  std::string approval_default = "deny";
  // A hook asked for the turn to end after this step ("end_turn": true, or the reason as a
  // string, in its result; e.g. hooks-shell for a Claude Code hook's `continue: false`): the
  // work already started finishes, nothing new starts, and the turn ends incomplete.
  bool end_turn = false;
  std::string end_turn_reason;
  // A tool:pre hook's replacement of the call's input ("updated_tool_input": {...} in its
  // result; the first such hook's wins). Only this changes what a tool runs with: a `modify`
  // of the payload changes what later hooks see (hooks-redaction's, for the logs), never the
  // call.
  std::optional<boost::json::object> updated_tool_input;

  // True for ask_user: the user must decide (see approval.hpp, settle_approval).
  bool asks_user() const { return action == "ask_user"; }
  // True for deny, and for an ask_user nobody settled whose default is not allow: a request
  // for approval that never reached the user fails closed.
  bool denies() const;
  // The reason to report for a denial.
  std::string deny_reason() const;
  // The reason to report for end_turn.
  std::string end_reason() const;
};

// Reads a combined HookResult. Missing fields keep their defaults; malformed JSON throws
// std::invalid_argument naming the problem.
HookOutcome parse_hook_outcome(std::string_view hook_result_json);

// Emits `event` with `data` through the host and returns the combined result.
HookOutcome emit_event(const amp::sdk::Host &host, std::string_view event,
                       const boost::json::object &data);

// Emits an observation, whose combined result nobody reads: `build()` makes the payload only
// when a hook listens (a turn's final answer can be megabytes). A failure to emit is logged,
// never thrown: observations must not cost the turn.
void notify_with(const amp::sdk::Host &host, std::string_view event,
                 const std::function<boost::json::object()> &build) noexcept;

// As emit_event and notify_with, for a payload that may hold a whole answer: `build` puts each
// long string through spliced.stand_in (amplifier/json_text.hpp), so it is written into the
// payload's text once instead of copied into a document and serialised.
using SplicedPayload = std::function<boost::json::object(SplicedJson &spliced)>;
HookOutcome emit_spliced(const amp::sdk::Host &host, std::string_view event,
                         const SplicedPayload &build);
void notify_spliced(const amp::sdk::Host &host, std::string_view event,
                    const SplicedPayload &build) noexcept;

// Splits injections by lifetime: ephemeral ones are appended to `for_next_request`, the
// others to `to_store`.
void sort_injections(const HookOutcome &outcome, std::vector<Injection> &to_store,
                     std::vector<Injection> &for_next_request);

}  // namespace amplifier::orchestrator

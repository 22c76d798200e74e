// Settling a hook's ask_user: the orchestrator asks the user through the host
// (amp_host_api.request_approval, ABI 1.1) and turns the answer into continue or deny.
#pragma once
#include "amplifier/orchestrator/hook_outcome.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json/object.hpp>

#include <string>
#include <string_view>

namespace amplifier::orchestrator {

// What the user is asked about: the tool (when a tool call is gated) and details worth
// showing, such as the tool's input.
struct ApprovalSubject {
  std::string_view event;     // the event whose hooks asked, e.g. "tool:pre"
  std::string tool_name;      // empty when no tool is concerned
  boost::json::object details;
};

// The request sent to host.request_approval for `outcome` (an ask_user):
// {prompt, options, timeout_seconds, default, tool_name?, details}.
boost::json::object approval_request(const HookOutcome &outcome, const ApprovalSubject &subject);

// For an ask_user outcome: emits approval:required {request..., event}, asks the host (which
// blocks until the user answers or the timeout passes), then emits approval:granted
// {decision, reason, ...} and returns the outcome as "continue", or emits approval:denied and
// returns it as "deny" with the user's reason. Any other outcome is returned unchanged.
// Call it on the turn thread only: asking blocks, possibly for minutes.
HookOutcome settle_approval(const amp::sdk::Host &host, HookOutcome outcome,
                            const ApprovalSubject &subject);

// emit_event followed by settle_approval.
HookOutcome emit_gated(const amp::sdk::Host &host, std::string_view event,
                       const boost::json::object &data, const ApprovalSubject &subject);

}  // namespace amplifier::orchestrator

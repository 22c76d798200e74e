#include "amplifier/orchestrator/approval.hpp"

#include "amplifier/orchestrator/events.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace amplifier::orchestrator {
namespace json = boost::json;
namespace {

constexpr std::string_view kAllowOnce = "allow_once";
constexpr std::string_view kAllowAlways = "allow_always";

struct Decision {
  std::string choice = "deny";
  std::string reason;
  bool allows() const { return choice == kAllowOnce || choice == kAllowAlways || choice == "allow"; }
};

// The host's answer; anything unreadable is a deny, because an approval that cannot be read
// was not given.
Decision read_decision(std::string_view answer_json) {
  Decision decision;
  json::error_code ec;
  json::value answer = json::parse(answer_json, ec);
  const json::object *o = ec ? nullptr : answer.if_object();
  if (!o) {
    decision.reason = "the approval answer was not a JSON object";
    return decision;
  }
  if (auto *choice = o->if_contains("decision"); choice && choice->is_string())
    decision.choice = std::string(choice->get_string());
  if (auto *reason = o->if_contains("reason"); reason && reason->is_string())
    decision.reason = std::string(reason->get_string());
  return decision;
}

}  // namespace

json::object approval_request(const HookOutcome &outcome, const ApprovalSubject &subject) {
  json::array options;
  for (const auto &option : outcome.approval_options) options.emplace_back(option);
  if (options.empty()) options = {kAllowOnce, kAllowAlways, "deny"};
  json::object request{
      {"prompt", outcome.approval_prompt.empty() ? std::string("Allow this action?")
                                                 : outcome.approval_prompt},
      {"options", std::move(options)},
      {"timeout_seconds", outcome.approval_timeout},
      {"default", outcome.approval_default},
      {"details", subject.details}};
  if (!subject.tool_name.empty()) request["tool_name"] = subject.tool_name;
  return request;
}

HookOutcome settle_approval(const amp::sdk::Host &host, HookOutcome outcome,
                            const ApprovalSubject &subject) {
  if (!outcome.asks_user()) return outcome;
  json::object request = approval_request(outcome, subject);
  json::object announced = request;
  announced["event"] = subject.event;
  notify_with(host, event::kApprovalRequired, [&] { return announced; });

  Decision decision = read_decision(host.request_approval(json::serialize(request)));
  json::object answered{{"decision", decision.choice},
                        {"reason", decision.reason},
                        {"prompt", request.at("prompt")},
                        {"event", subject.event}};
  if (!subject.tool_name.empty()) answered["tool_name"] = subject.tool_name;
  if (decision.allows()) {
    notify_with(host, event::kApprovalGranted, [&] { return answered; });
    outcome.action = "continue";
    return outcome;
  }
  notify_with(host, event::kApprovalDenied, [&] { return answered; });
  outcome.action = "deny";
  outcome.reason = decision.reason.empty() ? "the user denied approval"
                                           : "the user denied approval (" + decision.reason + ")";
  return outcome;
}

HookOutcome emit_gated(const amp::sdk::Host &host, std::string_view event,
                       const json::object &data, const ApprovalSubject &subject) {
  return settle_approval(host, emit_event(host, event, data), subject);
}

}  // namespace amplifier::orchestrator

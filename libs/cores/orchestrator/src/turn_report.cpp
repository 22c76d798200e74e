#include "amplifier/orchestrator/turn_report.hpp"

#include "amplifier/orchestrator/events.hpp"
#include "amplifier/orchestrator/hook_outcome.hpp"

#include "amplifier/json_text.hpp"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include <cstdio>

namespace amplifier::orchestrator {
namespace json = boost::json;
using Status = TurnOutcome::Status;

namespace {

// execution:end's vocabulary.
std::string_view execution_status(Status s) {
  switch (s) {
    case Status::Cancelled: return "cancelled";
    case Status::Error: return "error";
    default: return "completed";
  }
}

// orchestrator:complete's vocabulary (the reference's: an error is an incomplete turn).
std::string_view completion_status(Status s) {
  switch (s) {
    case Status::Success: return "success";
    case Status::Cancelled: return "cancelled";
    default: return "incomplete";
  }
}

void finish_call(const amp::sdk::Host &host, amp_call_id call, const TurnOutcome &outcome) noexcept {
  try {
    if (outcome.status == Status::Error) {
      KernelError error = outcome.error.value_or(
          KernelError::make(ErrorKind::internal, "the turn failed without an error description"));
      json::object payload = to_json(error);
      if (!outcome.report.empty()) payload["report"] = outcome.report;
      host.call_finish(call, AMP_ERROR, json::serialize(payload));
    } else {
      // The answer is written into the result's text once (it may be megabytes).
      json::object result;
      SplicedJson spliced;
      if (!outcome.report.empty()) result["report"] = outcome.report;
      result["response"] = spliced.stand_in(outcome.response);
      result["status"] = to_string(outcome.status);
      if (outcome.status == Status::BudgetExceeded) result["budget"] = outcome.budget;
      host.call_finish(call, AMP_OK, spliced.render(json::value(result), [&] {
        json::object whole = result;
        whole["response"] = outcome.response;
        return json::serialize(whole);
      }));
    }
  } catch (...) {  // out of memory while serialising: still end the call exactly once
    host.call_finish(call, AMP_ERROR,
                     R"({"kind":"internal","message":"could not report the turn's result"})");
  }
}

}  // namespace

TurnOutcome TurnOutcome::answered(std::string response, std::int64_t turn_count) {
  return {Status::Success, std::move(response), std::nullopt, turn_count, {}, {}};
}
TurnOutcome TurnOutcome::incomplete(std::string response, std::int64_t turn_count) {
  return {Status::Incomplete, std::move(response), std::nullopt, turn_count, {}, {}};
}
TurnOutcome TurnOutcome::cancelled(std::string response, std::int64_t turn_count) {
  return {Status::Cancelled, std::move(response), std::nullopt, turn_count, {}, {}};
}
TurnOutcome TurnOutcome::failed(KernelError error, std::int64_t turn_count) {
  std::string message = error.message;
  return {Status::Error, std::move(message), std::move(error), turn_count, {}, {}};
}
TurnOutcome TurnOutcome::budget_exceeded(json::object limit, std::int64_t turn_count) {
  auto text = [&](std::string_view key) -> std::string {
    const json::value *v = limit.if_contains(key);
    if (!v) return "?";
    if (v->is_string()) return std::string(v->get_string());
    char number[32];
    std::snprintf(number, sizeof number, "%.6g", v->is_number() ? v->to_number<double>() : 0.0);
    return number;
  };
  std::string response =
      limit.contains("reason")
          ? "The session's budget cannot be held: " + text("reason") +
                "; no further provider call was made."
          : "The session's budget is reached (" + text("limit") + ": " + text("used") +
                " used of " + text("max") + "); no further provider call was made.";
  return {Status::BudgetExceeded, std::move(response), std::nullopt, turn_count, std::move(limit), {}};
}

std::string_view to_string(Status status) {
  switch (status) {
    case Status::Success: return "success";
    case Status::Incomplete: return "incomplete";
    case Status::Cancelled: return "cancelled";
    case Status::Error: return "error";
    case Status::BudgetExceeded: return "budget_exceeded";
  }
  return "error";
}

void report_turn_end(const amp::sdk::Host &host, amp_call_id call, std::string_view orchestrator,
                     std::string_view prompt, const TurnOutcome &outcome) noexcept {
  try {
    notify_spliced(host, event::kExecutionEnd, [&](SplicedJson &spliced) {
      return json::object{{"response", spliced.stand_in(outcome.response)},
                          {"status", execution_status(outcome.status)}};
    });
    notify_with(host, event::kOrchestratorComplete, [&] {
      return json::object{{"orchestrator", orchestrator},
                          {"turn_count", outcome.turn_count},
                          {"status", completion_status(outcome.status)}};
    });
    notify_spliced(host, event::kPromptComplete, [&](SplicedJson &spliced) {
      return json::object{{"prompt", spliced.stand_in(prompt)},
                          {"response", spliced.stand_in(outcome.response)},
                          {"status", to_string(outcome.status)}};
    });
  } catch (...) {  // building a payload ran out of memory; the terminal event matters more
  }
  finish_call(host, call, outcome);
}

}  // namespace amplifier::orchestrator

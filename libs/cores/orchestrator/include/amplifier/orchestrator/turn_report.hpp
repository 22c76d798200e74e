// How a turn ended, and the events and terminal event that report it.
#pragma once
#include "amplifier/errors.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace amplifier::orchestrator {

struct TurnOutcome {
  // BudgetExceeded: the session's budget was reached before a provider call (or before the
  // turn), which was then not made; `budget` says which limit ({limit, used, max}).
  enum class Status { Success, Incomplete, Cancelled, Error, BudgetExceeded };
  Status status = Status::Success;
  std::string response;              // the final (or last) assistant text
  std::optional<KernelError> error;  // Error only
  std::int64_t turn_count = 0;       // provider calls made
  boost::json::object budget;        // BudgetExceeded only
  // For the caller, in the terminal payload's "report" (the parent of a child session rolls
  // the ledger up): {"ledger": {...}}; empty: none.
  boost::json::object report;

  static TurnOutcome answered(std::string response, std::int64_t turn_count);
  static TurnOutcome incomplete(std::string response, std::int64_t turn_count);
  static TurnOutcome cancelled(std::string response, std::int64_t turn_count);
  static TurnOutcome failed(KernelError error, std::int64_t turn_count);
  static TurnOutcome budget_exceeded(boost::json::object limit, std::int64_t turn_count);
};

// "success" | "incomplete" | "cancelled" | "error" | "budget_exceeded".
std::string_view to_string(TurnOutcome::Status status);

// Reports the end of a turn, in this order: execution:end {response, status:
// completed|cancelled|error}, orchestrator:complete {orchestrator, turn_count, status:
// success|incomplete|cancelled}, prompt:complete {prompt, response, status}, then exactly one
// call_finish: AMP_OK {"report"?,"response","status","budget"?} (the report first, so the
// kernel reads it without parsing the answer), or AMP_ERROR with the error JSON (and its
// "report"). A failing emit
// is logged and never prevents the terminal event.
void report_turn_end(const amp::sdk::Host &host, amp_call_id call, std::string_view orchestrator,
                     std::string_view prompt, const TurnOutcome &outcome) noexcept;

}  // namespace amplifier::orchestrator

// How a turn ended, and the events and terminal event that report it.
#pragma once
#include "amplifier/errors.hpp"
#include "amplifier_sdk.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace amplifier::orchestrator {

struct TurnOutcome {
  enum class Status { Success, Incomplete, Cancelled, Error };
  Status status = Status::Success;
  std::string response;              // the final (or last) assistant text
  std::optional<KernelError> error;  // Error only
  std::int64_t turn_count = 0;       // provider calls made

  static TurnOutcome answered(std::string response, std::int64_t turn_count);
  static TurnOutcome incomplete(std::string response, std::int64_t turn_count);
  static TurnOutcome cancelled(std::string response, std::int64_t turn_count);
  static TurnOutcome failed(KernelError error, std::int64_t turn_count);
};

// "success" | "incomplete" | "cancelled" | "error".
std::string_view to_string(TurnOutcome::Status status);

// Reports the end of a turn, in this order: execution:end {response, status:
// completed|cancelled|error}, orchestrator:complete {orchestrator, turn_count, status:
// success|incomplete|cancelled}, prompt:complete {prompt, response, status}, then exactly one
// call_finish: AMP_OK {"response","status"}, or AMP_ERROR with the error JSON. A failing emit
// is logged and never prevents the terminal event.
void report_turn_end(const amp::sdk::Host &host, amp_call_id call, std::string_view orchestrator,
                     std::string_view prompt, const TurnOutcome &outcome) noexcept;

}  // namespace amplifier::orchestrator

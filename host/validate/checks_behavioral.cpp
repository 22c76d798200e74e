#include "checks_behavioral.hpp"

namespace amplifier::host::validate {

bool run_behavioral_check(const std::string &check, const CheckContext &context) {
  using Check = CheckResult (*)(const CheckContext &);
  static const std::pair<const char *, Check> kChecks[] = {
      {"provider-offline", &provider_offline_check},
      {"tool-bad-input", &tool_bad_input_check},
      {"hook-events", &hook_events_check},
      {"context-round-trip", &context_round_trip_check},
      {"context-sessions-query", &context_sessions_query_check},
      {"orchestrator-turn", &orchestrator_turn_check},
  };
  const ChildReporter &out = *context.reporter;
  for (const auto &[name, run] : kChecks)
    if (check == name) {
      out.running(check);
      out.result(run(context));
      return true;
    }
  if (check.rfind("call-", 0) == 0) {
    out.running(check);
    out.result(call_check(check, context));
    return true;
  }
  return false;
}

}  // namespace amplifier::host::validate

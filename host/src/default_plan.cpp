#include "default_plan.hpp"

namespace amplifier::host {

DefaultPlan default_plan() {
  static const char *kOfflinePlan = R"(# The built-in plan: offline, on the mock provider.
session:
  orchestrator: loop-basic
  context: context-simple
providers:
  - module: provider-mock
tools:
  - module: tool-filesystem
    config:
      allowed_read_paths: ["."]
hooks:
  - module: hooks-logging
    config:
      session_log_template: "${AMPLIFIER_HOME:-~/.amplifier}/sessions/{session_id}/events.jsonl"
)";
  return {kOfflinePlan,
          "no --plan given: using the built-in offline plan (provider-mock, no network)"};
}

}  // namespace amplifier::host

#include "default_plan.hpp"

namespace amplifier::host {

namespace {
constexpr std::string_view kDisplayModule = "hooks-streaming-ui";
#ifdef AMP_HAVE_STREAMING_UI
constexpr bool kDisplayBuilt = true;
#else
constexpr bool kDisplayBuilt = false;
#endif
}  // namespace

bool mounts_display(const MountPlan &plan) {
  for (const auto &hook : plan.hooks)
    if (hook.module == kDisplayModule) return true;
  return false;
}

DefaultPlan default_plan(bool with_display) {
  static const char *kOfflinePlan = R"(# The built-in plan: offline, on the mock provider.
session:
  orchestrator: loop-streaming
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
  std::string yaml = kOfflinePlan;
  if (with_display && kDisplayBuilt) yaml += "  - module: " + std::string(kDisplayModule) + "\n";
  return {std::move(yaml),
          "no --plan given: using the built-in offline plan (provider-mock, no network)"};
}

}  // namespace amplifier::host

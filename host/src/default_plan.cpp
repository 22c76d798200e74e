#include "default_plan.hpp"

#include <cstdlib>
#include <string>

namespace amplifier::host {

namespace {
constexpr std::string_view kDisplayModule = "hooks-streaming-ui";
#ifdef AMP_HAVE_STREAMING_UI
constexpr bool kDisplayBuilt = true;
#else
constexpr bool kDisplayBuilt = false;
#endif

bool anthropic_key_set() {
  const char *key = std::getenv("ANTHROPIC_API_KEY");
  return key && *key;
}

}  // namespace

bool mounts_display(const MountPlan &plan) {
  for (const auto &hook : plan.hooks)
    if (hook.module == kDisplayModule) return true;
  return false;
}

DefaultPlan default_plan(bool with_display) {
  // A vendor key in the environment means the user wants the real model; otherwise offline.
  const bool anthropic = anthropic_key_set();
  static const char *kPlanHead = R"(# The built-in plan.
session:
  orchestrator: loop-streaming
  context: context-simple
providers:
)";
  static const char *kMockProvider = "  - module: provider-mock\n";
  static const char *kAnthropicProvider = R"(  - module: provider-anthropic
    config:
      api_key: "${ANTHROPIC_API_KEY}"
)";
  static const char *kPlanTail = R"(tools:
  - module: tool-filesystem
    config:
      allowed_read_paths: ["."]
hooks:
  - module: hooks-logging
    config:
      session_log_template: "${AMPLIFIER_HOME:-~/.amplifier}/sessions/{session_id}/events.jsonl"
)";
  std::string yaml = std::string(kPlanHead) + (anthropic ? kAnthropicProvider : kMockProvider) + kPlanTail;
  if (with_display && kDisplayBuilt) yaml += "  - module: " + std::string(kDisplayModule) + "\n";
  return {std::move(yaml),
          anthropic ? "no --plan given: ANTHROPIC_API_KEY is set, using the built-in plan on "
                      "provider-anthropic"
                    : "no --plan given: using the built-in offline plan (provider-mock, no network)"};
}

}  // namespace amplifier::host

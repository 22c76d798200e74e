// The plan `amplifier run` uses without --plan.
#pragma once
#include "settings.hpp"

#include "amplifier/mount_plan.hpp"

#include <optional>
#include <string>

namespace amplifier::host {
struct DefaultPlan {
  std::string yaml;
  std::string description;  // one line saying what it runs on
  std::string label;        // the plan's name in messages
};
// Through loop-streaming, on the provider settings.yaml names (`amplifier init`); without
// one, on the first vendor whose key is in the environment:
// provider-anthropic (ANTHROPIC_API_KEY), provider-openai (OPENAI_API_KEY), then
// provider-azure-openai (AZURE_OPENAI_ENDPOINT with AZURE_OPENAI_API_KEY or
// AZURE_OPENAI_AD_TOKEN), provider-gemini (GEMINI_API_KEY or GOOGLE_API_KEY); else offline on
// provider-mock. `with_display`: also mount
// hooks-streaming-ui when the build has it (not for machine-readable output, which the
// display would interleave with).
// A settings.yaml that cannot be read throws SettingsError naming the file and the problem.
DefaultPlan default_plan(bool with_display);
// The same with `settings` in place of the user's settings.yaml.
DefaultPlan default_plan(bool with_display, const std::optional<UserSettings> &settings);

// Whether `plan` mounts the terminal display (hooks-streaming-ui), which then shows the
// answer itself: the host must not print it a second time.
bool mounts_display(const MountPlan &plan);
}  // namespace amplifier::host

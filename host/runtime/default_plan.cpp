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

bool env_set(const char *name) {
  const char *value = std::getenv(name);
  return value && *value;
}

// A vendor whose key in the environment selects it for the built-in plan.
struct VendorChoice {
  const char *module;
  const char *why;     // the environment that selected it
  const char *config;  // the provider entry's config lines
  bool (*selected)();
};

// Anthropic first, then OpenAI, then Azure OpenAI (which also needs its endpoint), then Gemini.
constexpr VendorChoice kVendors[] = {
    {"provider-anthropic", "ANTHROPIC_API_KEY is set",
     "      api_key: \"${ANTHROPIC_API_KEY}\"\n",
     [] { return env_set("ANTHROPIC_API_KEY"); }},
    {"provider-openai", "OPENAI_API_KEY is set", "      api_key: \"${OPENAI_API_KEY}\"\n",
     [] { return env_set("OPENAI_API_KEY"); }},
    {"provider-azure-openai", "AZURE_OPENAI_ENDPOINT and an Azure credential are set",
     // The environment supplies endpoint and credential; the deployment may come from there too.
     "      default_deployment: \"${AZURE_OPENAI_DEPLOYMENT:-gpt-5.1}\"\n",
     [] {
       return env_set("AZURE_OPENAI_ENDPOINT") &&
              (env_set("AZURE_OPENAI_API_KEY") || env_set("AZURE_OPENAI_AD_TOKEN"));
     }},
    // The key comes from GEMINI_API_KEY or GOOGLE_API_KEY, which the module reads itself.
    {"provider-gemini", "GEMINI_API_KEY or GOOGLE_API_KEY is set",
     "      base_url: \"${GEMINI_BASE_URL:-https://generativelanguage.googleapis.com}\"\n"
     "      include_thoughts: true\n",
     [] { return env_set("GEMINI_API_KEY") || env_set("GOOGLE_API_KEY"); }},
};

const VendorChoice *chosen_vendor() {
  for (const auto &vendor : kVendors)
    if (vendor.selected()) return &vendor;
  return nullptr;
}

}  // namespace

bool mounts_display(const MountPlan &plan) {
  for (const auto &hook : plan.hooks)
    if (hook.module == kDisplayModule) return true;
  return false;
}

DefaultPlan default_plan(bool with_display) {
  return default_plan(with_display, load_user_settings());
}

DefaultPlan default_plan(bool with_display, const std::optional<UserSettings> &settings) {
  // What the user set up with `amplifier init` comes first; then a vendor key in the
  // environment means the user wants the real model; otherwise offline.
  const bool from_settings = settings && !settings->provider.empty();
  const VendorChoice *vendor = from_settings ? nullptr : chosen_vendor();
  static const char *kPlanHead = R"(# The built-in plan.
session:
  orchestrator: loop-streaming
  context: context-simple
providers:
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
  std::string yaml = kPlanHead;
  if (from_settings)
    yaml += provider_plan_entry(settings->provider, settings->provider_config);
  else if (vendor)
    yaml += "  - module: " + std::string(vendor->module) + "\n    config:\n" + vendor->config;
  else
    yaml += "  - module: provider-mock\n";
  yaml += kPlanTail;
  if (with_display && kDisplayBuilt) yaml += "  - module: " + std::string(kDisplayModule) + "\n";
  if (from_settings)
    return {std::move(yaml),
            "no --plan given: using the built-in plan on " + settings->provider + " (from " +
                settings->file.string() + ")",
            "<built-in default plan with " + settings->file.string() + ">"};
  std::string description =
      vendor ? "no --plan given: " + std::string(vendor->why) + ", using the built-in plan on " +
                   vendor->module
             : "no --plan given: using the built-in offline plan (provider-mock, no network)";
  return {std::move(yaml), std::move(description), "<built-in default plan>"};
}

}  // namespace amplifier::host

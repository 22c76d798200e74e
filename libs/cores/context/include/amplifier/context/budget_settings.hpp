// The token budget of a request and when compaction starts, from config and request hints.
#pragma once
#include "amplifier/module_support/config_reader.hpp"

#include <cstdint>
#include <optional>

namespace amplifier::context {

// The config keys every context manager accepts.
struct BudgetSettings {
  // The budget when the provider's context window is unknown; when set in config, also a cap
  // on the budget derived from the window.
  std::int64_t max_tokens = 200000;
  bool max_tokens_configured = false;
  // Compaction starts when the estimate passes compact_threshold * budget...
  double compact_threshold = 0.92;
  // ...and removes content until the estimate is at most compact_target * budget, so that the
  // next few requests fit without compacting again.
  double compact_target = 0.75;
  // Tokens kept free for the answer when neither the hints nor the provider say how many.
  std::int64_t output_reserve = 4096;
};

// Reads max_tokens, compact_threshold, compact_target and output_reserve. Throws ConfigError
// naming the key for a bad value (compact_target above compact_threshold included).
BudgetSettings read_budget_settings(amplifier::module_support::ConfigReader &reader);

// What a provider says about its limits (ProviderInfo.defaults of providers_list).
struct ProviderLimits {
  std::optional<std::int64_t> context_window;
  std::optional<std::int64_t> max_output_tokens;
};

struct TokenBudget {
  std::int64_t budget = 0;   // tokens the request's input may use
  std::int64_t trigger = 0;  // compaction starts above this estimate
  std::int64_t target = 0;   // and stops at or below this one
};

// The window comes from the hints, else the provider; the reserve from the hints' max output,
// else the provider's, else settings.output_reserve. Without a window the budget is
// settings.max_tokens; a configured max_tokens caps it either way. Never below one token.
TokenBudget compute_budget(const BudgetSettings &settings,
                           std::optional<std::int64_t> hinted_window,
                           std::optional<std::int64_t> hinted_max_output,
                           const ProviderLimits &provider);

// `budget` lowered to at most `cap` tokens (never below one), its trigger and target following.
TokenBudget cap_budget(const BudgetSettings &settings, const TokenBudget &budget, std::int64_t cap);

// The budget to use for a provider after it refused a request estimated at `refused_tokens` as
// too long: compact_target of it, so the retry (and every later request) is clearly smaller
// than what was refused, with room for the estimate to be off.
std::int64_t budget_after_overflow(const BudgetSettings &settings, std::int64_t refused_tokens);

}  // namespace amplifier::context

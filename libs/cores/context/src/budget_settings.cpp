#include "amplifier/context/budget_settings.hpp"

#include <algorithm>
#include <cmath>

namespace amplifier::context {
namespace ms = amplifier::module_support;

BudgetSettings read_budget_settings(ms::ConfigReader &reader) {
  BudgetSettings settings;
  settings.max_tokens_configured = reader.has("max_tokens");
  settings.max_tokens = reader.get_int("max_tokens", settings.max_tokens, 1);
  settings.compact_threshold =
      reader.get_number("compact_threshold", settings.compact_threshold, 0.0, 1.0);
  settings.compact_target = reader.get_number(
      "compact_target", std::min(settings.compact_target, settings.compact_threshold), 0.0, 1.0);
  if (settings.compact_target > settings.compact_threshold)
    throw reader.error("compact_target", "must not be above compact_threshold (" +
                                             std::to_string(settings.compact_threshold) + ")");
  settings.output_reserve = reader.get_int("output_reserve", settings.output_reserve, 0);
  return settings;
}

namespace {

std::int64_t share_of(double share, std::int64_t tokens) {
  return std::max<std::int64_t>(
      1, static_cast<std::int64_t>(std::floor(share * static_cast<double>(tokens))));
}

TokenBudget budget_of(const BudgetSettings &settings, std::int64_t budget) {
  budget = std::max<std::int64_t>(budget, 1);
  return TokenBudget{budget, share_of(settings.compact_threshold, budget),
                     share_of(settings.compact_target, budget)};
}

}  // namespace

TokenBudget compute_budget(const BudgetSettings &settings,
                           std::optional<std::int64_t> hinted_window,
                           std::optional<std::int64_t> hinted_max_output,
                           const ProviderLimits &provider) {
  const std::optional<std::int64_t> window = hinted_window ? hinted_window : provider.context_window;
  const std::int64_t reserve =
      hinted_max_output.value_or(provider.max_output_tokens.value_or(settings.output_reserve));
  std::int64_t budget = window ? *window - reserve : settings.max_tokens;
  if (window && settings.max_tokens_configured) budget = std::min(budget, settings.max_tokens);
  return budget_of(settings, budget);
}

TokenBudget cap_budget(const BudgetSettings &settings, const TokenBudget &budget,
                       std::int64_t cap) {
  return cap < budget.budget ? budget_of(settings, cap) : budget;
}

std::int64_t budget_after_overflow(const BudgetSettings &settings, std::int64_t refused_tokens) {
  return share_of(settings.compact_target, refused_tokens);
}

}  // namespace amplifier::context

#include "amplifier/orchestrator/loop_config.hpp"

#include "amplifier/errors.hpp"
#include "amplifier/module_support/config_reader.hpp"
#include "amplifier/module_support/json_util.hpp"

#include <limits>
#include <string>

namespace amplifier::orchestrator {
namespace json = boost::json;
using module_support::ConfigReader;

namespace {
constexpr std::int64_t kDefaultPriority = 100;

std::int64_t priority_of(const json::object &provider) {
  auto *p = provider.if_contains("priority");
  return p && module_support::is_integral(*p) ? module_support::to_int64(*p) : kDefaultPriority;
}

std::string name_of(const json::object &provider) {
  auto *n = provider.if_contains("name");
  return n && n->is_string() ? std::string(n->get_string()) : std::string();
}

std::string mounted_names(const json::array &providers) {
  std::string names;
  for (const auto &p : providers) {
    if (!p.is_object()) continue;
    if (!names.empty()) names += ", ";
    names += name_of(p.get_object());
  }
  return names.empty() ? "none" : names;
}
}  // namespace

LoopConfig read_loop_config(std::string_view config_json, const LoopPolicy &policy,
                            const amp::sdk::Host &host) {
  ConfigReader reader(config_json, std::string(policy.module_id) + " config");
  LoopConfig config;
  config.max_iterations =
      reader.get_int("max_iterations", -1, -1, std::numeric_limits<std::int64_t>::max());
  if (config.max_iterations == 0)
    throw reader.error("max_iterations", "must be -1 (unlimited) or at least 1, got 0");
  config.provider = reader.get_optional_string("provider");
  config.route = reader.get_string("route", config.route);
  config.model = reader.get_optional_string("model");
  if (reader.has("max_output_tokens"))
    config.max_output_tokens = reader.get_int("max_output_tokens", 0, 1);
  if (reader.has("temperature")) config.temperature = reader.get_number("temperature", 0, 0, 2);
  config.reasoning_effort = reader.get_optional_string("reasoning_effort");
  config.cancel_grace = std::chrono::milliseconds(reader.get_int("cancel_grace_ms", 1000, 0, 60000));
  config.max_tool_result_chars = static_cast<std::size_t>(reader.get_int(
      "max_tool_result_chars", static_cast<std::int64_t>(config.max_tool_result_chars), 0));
  if (policy.streaming_options) {
    config.min_delay_between_calls =
        std::chrono::milliseconds(reader.get_int("min_delay_between_calls_ms", 0, 0, 600000));
    if (reader.has("extended_thinking"))
      config.extended_thinking = reader.get_bool("extended_thinking", false);
  }
  if (const json::value *budget = reader.get_value("budget")) {
    try {
      config.budget = cost::budget_from_json(*budget, "budget");
    } catch (const cost::PriceError &e) {
      throw reader.error("budget", e.what());
    }
  }
  reader.warn_unknown_keys(host);
  return config;
}

std::string select_provider(const json::value &providers, const std::optional<std::string> &forced) {
  static const json::array kNone;
  const json::array &list = providers.is_array() ? providers.get_array() : kNone;
  const json::object *best = nullptr;
  for (const auto &p : list) {
    if (!p.is_object() || name_of(p.get_object()).empty()) continue;
    const json::object &candidate = p.get_object();
    if (forced) {
      if (name_of(candidate) == *forced) return *forced;
      continue;
    }
    if (!best || priority_of(candidate) < priority_of(*best)) best = &candidate;
  }
  if (forced)
    throw KernelException(KernelError::make(
        ErrorKind::configuration, "the configured provider '" + *forced +
                                      "' is not mounted (mounted: " + mounted_names(list) + ")"));
  if (!best)
    throw KernelException(KernelError::make(
        ErrorKind::configuration,
        "no provider is mounted: add one under `providers` in the mount plan"));
  return name_of(*best);
}

std::vector<std::string> route_of(const json::value &routing, std::string_view role,
                                  const json::value &providers) {
  std::vector<std::string> route;
  const json::object *roles = routing.if_object();
  const json::value *list = roles ? roles->if_contains(role) : nullptr;
  if (!list || !list->is_array() || !providers.is_array()) return route;
  for (const auto &name : list->get_array()) {
    if (!name.is_string()) continue;
    for (const auto &p : providers.get_array())
      if (p.is_object() && name_of(p.get_object()) == name.get_string()) {
        route.emplace_back(name.get_string());
        break;
      }
  }
  return route;
}

bool safe_to_fall_back(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::overloaded:
    case ErrorKind::rate_limit:
    case ErrorKind::unavailable:
    case ErrorKind::timeout:
    case ErrorKind::network:
    case ErrorKind::module_crashed:
      return true;
    default:
      return false;
  }
}

}  // namespace amplifier::orchestrator

#include "metrics.hpp"

#include "amplifier/events.hpp"

#include <fmt/format.h>

#include <chrono>
#include <memory>

namespace amplifier::host::serve {
namespace json = boost::json;
namespace {

using Clock = std::chrono::steady_clock;

std::string kind_of(const json::object &data) {
  const json::value *error = data.if_contains("error");
  const json::object *fields = error && error->is_object() ? &error->as_object() : &data;
  const json::value *kind = fields->if_contains("kind");
  return kind && kind->is_string() ? std::string(kind->as_string()) : "unknown";
}

std::int64_t integer_member(const json::object &o, std::string_view key) {
  const json::value *v = o.if_contains(key);
  return v && v->is_int64() ? v->as_int64() : v && v->is_uint64() ? v->as_uint64() : 0;
}

void add_counter(std::string &out, std::string_view name, std::string_view help,
                 std::string_view label,
                 const std::map<std::string, std::uint64_t, std::less<>> &values) {
  out += fmt::format("# HELP {} {}\n# TYPE {} counter\n", name, help, name);
  for (const auto &[key, count] : values)
    out += fmt::format("{}{{{}=\"{}\"}} {}\n", name, label, key, count);
}

}  // namespace

template <std::size_t N>
void Histogram<N>::append(std::string &out, std::string_view name, std::string_view help) const {
  out += fmt::format("# HELP {} {}\n# TYPE {} histogram\n", name, help, name);
  for (std::size_t i = 0; i < N; ++i)
    out += fmt::format("{}_bucket{{le=\"{}\"}} {}\n", name, bounds_[i], counts_[i]);
  out += fmt::format("{}_bucket{{le=\"+Inf\"}} {}\n{}_sum {}\n{}_count {}\n", name, count_, name,
                     sum_, name, count_);
}

void Metrics::turn_finished(std::string_view status) {
  std::lock_guard lock(mutex_);
  turns_[std::string(status)]++;
}

void Metrics::error(std::string_view kind) {
  std::lock_guard lock(mutex_);
  errors_[std::string(kind)]++;
}

void Metrics::tokens(std::string_view direction, std::int64_t count) {
  if (count <= 0) return;
  std::lock_guard lock(mutex_);
  tokens_[std::string(direction)] += static_cast<std::uint64_t>(count);
}

void Metrics::call_cost(const json::value &usd) {
  std::lock_guard lock(mutex_);
  if (usd.is_number() && usd.to_number<double>() > 0)
    cost_usd_ += usd.to_number<double>();
  else if (usd.is_null())
    unpriced_calls_++;
}

void Metrics::provider_latency(double seconds) {
  std::lock_guard lock(mutex_);
  provider_latency_.observe(seconds);
}

void Metrics::first_event(double seconds) {
  std::lock_guard lock(mutex_);
  first_event_.observe(seconds);
}

void Metrics::observe(HookRegistry &hooks) {
  // A session's provider calls follow one another, so one start time per session suffices.
  auto started = std::make_shared<std::atomic<Clock::rep>>(0);
  hooks.register_handler(
      std::string(events::kProviderRequest),
      [started](std::string_view, const json::object &) {
        started->store(Clock::now().time_since_epoch().count());
        return HookResult{};
      },
      0, "serve-metrics");
  hooks.register_handler(
      std::string(events::kProviderResponse),
      [this, started](std::string_view, const json::object &data) {
        if (auto since = started->exchange(0))
          provider_latency(std::chrono::duration<double>(Clock::now().time_since_epoch() -
                                                         Clock::duration(since))
                               .count());
        if (const json::value *usage = data.if_contains("usage"); usage && usage->is_object()) {
          tokens("input", integer_member(usage->as_object(), "input_tokens"));
          tokens("output", integer_member(usage->as_object(), "output_tokens"));
        }
        return HookResult{};
      },
      0, "serve-metrics");
  hooks.register_handler(
      "ledger:update",
      [this](std::string_view, const json::object &data) {
        const json::value *call = data.if_contains("call");
        const json::value *usd = call && call->is_object() ? call->as_object().if_contains("usd") : nullptr;
        if (usd) call_cost(*usd);
        return HookResult{};
      },
      0, "serve-metrics");
  for (auto event : {events::kProviderError, events::kToolError})
    hooks.register_handler(
        std::string(event),
        [this, event](std::string_view, const json::object &data) {
          error(event == events::kToolError ? "tool" : kind_of(data));
          return HookResult{};
        },
        0, "serve-metrics");
}

std::string Metrics::prometheus(std::size_t sessions_open, std::size_t turns_running) const {
  std::string out;
  out += fmt::format(
      "# HELP amplifier_sessions Sessions open.\n# TYPE amplifier_sessions gauge\n"
      "amplifier_sessions {}\n",
      sessions_open);
  out += fmt::format(
      "# HELP amplifier_sessions_created_total Sessions created.\n"
      "# TYPE amplifier_sessions_created_total counter\n"
      "amplifier_sessions_created_total {}\n"
      "# HELP amplifier_sessions_reopened_total Sessions opened again from the shared store.\n"
      "# TYPE amplifier_sessions_reopened_total counter\n"
      "amplifier_sessions_reopened_total {}\n"
      "# HELP amplifier_sessions_unloaded_total Idle sessions given back to the shared store.\n"
      "# TYPE amplifier_sessions_unloaded_total counter\n"
      "amplifier_sessions_unloaded_total {}\n",
      sessions_created_.load(), sessions_reopened_.load(), sessions_unloaded_.load());
  out += fmt::format(
      "# HELP amplifier_turns_running Turns running.\n"
      "# TYPE amplifier_turns_running gauge\namplifier_turns_running {}\n",
      turns_running);
  std::lock_guard lock(mutex_);
  add_counter(out, "amplifier_turns_total", "Turns finished, by status.", "status", turns_);
  add_counter(out, "amplifier_tokens_total", "Tokens the providers reported.", "direction",
              tokens_);
  out += fmt::format(
      "# HELP amplifier_cost_usd_total What the provider calls cost, in USD, at the price "
      "table's prices (calls of a model with no known price are not in it).\n"
      "# TYPE amplifier_cost_usd_total counter\namplifier_cost_usd_total {:.10g}\n"
      "# HELP amplifier_unpriced_calls_total Provider calls of a model with no known price.\n"
      "# TYPE amplifier_unpriced_calls_total counter\namplifier_unpriced_calls_total {}\n",
      cost_usd_, unpriced_calls_);
  add_counter(out, "amplifier_errors_total", "Provider, tool and turn errors, by kind.", "kind",
              errors_);
  provider_latency_.append(out, "amplifier_provider_latency_seconds",
                           "Provider call time, request to response.");
  first_event_.append(out, "amplifier_stream_first_event_seconds",
                      "Event streams: the request read to its first event handed to the socket.");
  return out;
}

}  // namespace amplifier::host::serve

// An agent loop's configuration and its choice of provider.
#pragma once
#include "amplifier/cost/ledger.hpp"
#include "amplifier/errors.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json/value.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace amplifier::orchestrator {

struct LoopConfig {
  // Provider calls with tools per turn; -1 is unlimited. When reached, the loop makes one
  // final call without tools, with a reminder to wrap up.
  std::int64_t max_iterations = -1;
  std::optional<std::string> provider;  // force a provider by mount name (no fallback then)
  // The role of the plan's `routing` this loop's turns use (capability "session.routing"):
  // its providers in order, the next tried when one fails in a way safe to fall back on.
  std::string route = "default";
  std::optional<std::string> model;
  std::optional<std::int64_t> max_output_tokens;
  std::optional<double> temperature;
  std::optional<std::string> reasoning_effort;
  // After an immediate cancel, how long to wait for cancelled calls to report their end
  // before giving up on them (their results are then synthesised).
  std::chrono::milliseconds cancel_grace{1000};
  // The characters one tool result may bring into the context; longer ones are cut with a
  // note (tool_result_limit.hpp). 0: no limit.
  std::size_t max_tool_result_chars = 100000;
  // Streaming-loop options (see LoopPolicy::streaming_options).
  std::chrono::milliseconds min_delay_between_calls{0};  // between provider call starts
  std::optional<bool> extended_thinking;                 // sent in every ChatRequest
  // This loop's limits on its session ({max_cost_usd, max_tokens, max_turns}): an agent's
  // own budget; the plan's session.budget applies as well, the stricter of each limit.
  cost::Budget budget;

  bool iteration_limit_reached(std::int64_t iterations_done) const {
    return max_iterations >= 0 && iterations_done >= max_iterations;
  }
};

// What makes one agent loop module differ from another: everything else (the turn itself)
// is shared, in agent_turn.hpp.
struct LoopPolicy {
  std::string_view module_id;  // reported in orchestrator:complete
  // Accepts `min_delay_between_calls_ms` and `extended_thinking` (loop-streaming). Without
  // it those keys are unknown and warned about, as any other unknown key.
  bool streaming_options = false;
};

// Reads `config_json` (the module's config object); unknown keys are logged as warnings.
// Throws module_support::ConfigError naming the key on a bad value.
LoopConfig read_loop_config(std::string_view config_json, const LoopPolicy &policy,
                            const amp::sdk::Host &host);

// The provider with the lowest priority (default 100; ties go to the first mounted), or the
// one named by `forced`. `providers` is amp_host_api.providers_list's array.
// Throws KernelException (kind configuration) when there is none, or `forced` is not mounted.
std::string select_provider(const boost::json::value &providers,
                            const std::optional<std::string> &forced);

// The providers of `role` in the plan's routing (capability "session.routing", a JSON object
// of role -> [mount names]) that are mounted, in order; empty when the role has none.
std::vector<std::string> route_of(const boost::json::value &routing, std::string_view role,
                                  const boost::json::value &providers);

// Whether a provider call that failed so may be asked of the next provider of the route:
// overloaded, rate_limit (after the provider's own retries), unavailable (5xx), timeout,
// network, a crashed provider process. Never authentication, invalid_request, content_filter,
// context_length or the like: another vendor would refuse the same, or should not be asked.
bool safe_to_fall_back(ErrorKind kind);

}  // namespace amplifier::orchestrator

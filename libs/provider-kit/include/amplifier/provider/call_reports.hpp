// Events a provider call reports besides its stream: repairs made to the conversation before
// it was sent, and a helper for fire-and-forget notifications.
#pragma once
#include "amplifier_sdk.hpp"

#include <boost/json/object.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace amplifier::provider {

// A tool call that had no result in the conversation and was given a synthetic error result,
// because the vendor rejects a call without its result.
struct RepairedToolCall {
  std::string tool_call_id;
  std::string tool_name;
};

// host.notify(event, payload), turning a failure into a warning: a lost observer event must
// not fail the call.
void notify_or_warn(const amp::sdk::Host &host, std::string_view event,
                    const boost::json::object &payload);

// A warning per dropped tool result (no call of its id precedes it) and, when calls were
// repaired, provider:tool_sequence_repaired {provider, repair_count, repairs: [{tool_call_id,
// tool_name}]}.
void report_tool_repairs(const amp::sdk::Host &host, std::string_view provider,
                         const std::vector<RepairedToolCall> &repaired,
                         const std::vector<std::string> &dropped_results);

}  // namespace amplifier::provider

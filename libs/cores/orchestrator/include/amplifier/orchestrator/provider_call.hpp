// One provider completion: start it through the host, forward its stream as kernel
// content_block events while it arrives, wait (holding no thread) for the terminal event or
// cancellation.
#pragma once
#include "amplifier/errors.hpp"
#include "amplifier/model.hpp"
#include "amplifier/orchestrator/task.hpp"
#include "amplifier/orchestrator/turn_signal.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace amplifier::orchestrator {

struct ProviderResult {
  enum class Status { Response, Error, Cancelled };
  Status status = Status::Error;
  boost::json::object response_json;  // Response: the terminal payload as sent
  ChatResponse response;              // Response: the same, parsed
  KernelError error;                  // Error: what went wrong (kind, message, status code...)
  // Content reached the hooks (and so, perhaps, the user) before the call ended: asking again
  // would show it twice.
  bool content_streamed = false;
};

// Maps one provider stream event to the kernel event that announces it:
//   content_block_start -> content_block:start {block_type, block_index}
//   content_block_delta -> content_block:delta {block_index, delta}
//                          ({block_index, partial_json} for tool_input deltas)
//   content_block_end   -> content_block:end   {block_index, block}
// Other events (usage, progress) have no kernel event: nullopt. Typed deltas (ABI 1.2) never
// come here: they go to the hooks as they are (amp::sdk::Host::emit_content_delta).
// The event is taken: its block moves into the kernel event (a block may be a whole answer).
std::optional<std::pair<std::string_view, boost::json::object>> kernel_event_for(
    boost::json::object stream_event);

// Starts `request_json` on `provider` and completes with its terminal event. Stream events are
// forwarded to the hooks from the sink callbacks, on the provider's thread, as they come;
// typed deltas stay typed all the way. An immediate cancellation (through `signal`) cancels
// the call, waits up to `cancel_grace` for it to end and completes as Cancelled; a graceful
// one lets the call finish.
Task<ProviderResult> call_provider(const amp::sdk::Host &host, std::shared_ptr<TurnSignal> signal,
                                   std::string provider, std::string request_json,
                                   std::chrono::milliseconds cancel_grace);

}  // namespace amplifier::orchestrator

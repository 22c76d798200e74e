// The orchestrator module every agent loop is: config from its LoopPolicy, one AgentTurn per
// execute, cancellation routed to the right turn. A loop module is this class, its policy
// and AMP_DEFINE_MODULE.
//
// Threads: the host calls execute() on a worker thread dedicated to the turn, and the whole
// turn runs there (hooks, approvals, context, provider calls, tool batches). Provider stream
// events are forwarded as content_block events from the sink callbacks, on the provider's
// threads, as they arrive. cancel() comes from the canceller's thread and only raises the
// turn's TurnSignal, which wakes whatever the turn thread is waiting for.
#pragma once
#include "amplifier/orchestrator/agent_turn.hpp"
#include "amplifier/orchestrator/call_pacer.hpp"
#include "amplifier/orchestrator/loop_config.hpp"
#include "amplifier/orchestrator/turn_signal.hpp"
#include "amplifier_sdk.hpp"

#include <string_view>

namespace amplifier::orchestrator {

class AgentLoopModule : public amp::sdk::OrchestratorModule {
 public:
  // `policy.module_id` must outlive the module (a string literal).
  AgentLoopModule(amp::sdk::Host host, std::string_view config_json, const LoopPolicy &policy);

  void execute(amp_call_id call, std::string_view prompt_json) override;
  void cancel(amp_call_id call, amp_cancel_level level) override;

 private:
  const LoopPolicy policy_;
  const LoopConfig config_;
  CallPacer pacer_;
  ActiveTurns turns_;
};

}  // namespace amplifier::orchestrator

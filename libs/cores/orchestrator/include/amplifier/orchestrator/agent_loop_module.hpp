// The orchestrator module every agent loop is: config from its LoopPolicy, one AgentTurn per
// execute, cancellation routed to the right turn. A loop module is this class, its policy
// and AMP_DEFINE_MODULE.
//
// Threads: execute() starts the turn's coroutine and returns as soon as the turn first waits.
// Its steps (hooks, approvals, context, starting provider calls and tool batches) then run on
// the host's worker pool, one at a time; while it waits for a provider, its tools or a
// pacing delay it holds no thread at all, so a thousand sessions' turns need a handful.
// Provider stream events are forwarded as content_block events from the sink callbacks, on
// the provider's threads, as they arrive. cancel() comes from the canceller's thread and only
// raises the turn's TurnSignal, which resumes the turn if it waits for that. Destroying the
// instance cancels running turns immediately and waits for them to end.
#pragma once
#include "amplifier/orchestrator/agent_turn.hpp"
#include "amplifier/orchestrator/call_pacer.hpp"
#include "amplifier/orchestrator/loop_config.hpp"
#include "amplifier/orchestrator/session_ledger.hpp"
#include "amplifier/orchestrator/task.hpp"
#include "amplifier/orchestrator/turn_signal.hpp"
#include "amplifier_sdk.hpp"

#include <string_view>

namespace amplifier::orchestrator {

class AgentLoopModule : public amp::sdk::OrchestratorModule {
 public:
  // `policy.module_id` must outlive the module (a string literal).
  AgentLoopModule(amp::sdk::Host host, std::string_view config_json, const LoopPolicy &policy);

  ~AgentLoopModule() override;

  void execute(amp_call_id call, std::string_view prompt_json) override;
  void cancel(amp_call_id call, amp_cancel_level level) override;

 private:
  Task<void> run_turn(amp_call_id call, TurnInput input, std::shared_ptr<TurnSignal> signal);
  // Reports the turn's end (events, then its one call_finish) and forgets the turn.
  void end_turn(amp_call_id call, std::string_view prompt, const TurnOutcome &outcome) noexcept;

  const LoopPolicy policy_;
  const LoopConfig config_;
  CallPacer pacer_;
  SessionLedger ledger_;  // the session's cost and tokens, across its turns
  ActiveTurns turns_;
};

}  // namespace amplifier::orchestrator

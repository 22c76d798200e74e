// One turn of an agent loop: prompt -> (provider call -> parallel tools)* -> answer. Shared by
// loop-basic and loop-streaming, which differ only in their LoopPolicy (loop_config.hpp).
#pragma once
#include "amplifier/orchestrator/call_pacer.hpp"
#include "amplifier/orchestrator/hook_outcome.hpp"
#include "amplifier/orchestrator/loop_config.hpp"
#include "amplifier/orchestrator/provider_call.hpp"
#include "amplifier/orchestrator/tool_batch.hpp"
#include "amplifier/orchestrator/turn_report.hpp"
#include "amplifier/orchestrator/turn_signal.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace amplifier::orchestrator {

// Runs on the host's dedicated turn thread and blocks there until the turn ends. The only
// other threads involved are the providers' (stream forwarding, terminal events) and the
// canceller's; both reach the turn only through its TurnSignal.
class AgentTurn {
 public:
  AgentTurn(const amp::sdk::Host &host, const LoopConfig &config, CallPacer &pacer,
            std::shared_ptr<TurnSignal> signal, amp_call_id call);

  // Never throws: any failure becomes an error outcome. Ends with a transcript in which every
  // tool call has a result and the last message this turn stored is the assistant's.
  TurnOutcome run(const std::string &prompt);

 private:
  TurnOutcome run_steps(const std::string &prompt);
  // One provider call and what follows it. Returns the outcome when the turn ends here.
  std::optional<TurnOutcome> iterate(bool final_call);

  std::optional<TurnOutcome> submit_prompt(const std::string &prompt);
  std::string build_request(bool final_call);
  boost::json::object context_hints() const;
  std::optional<TurnOutcome> handle_response(const ProviderResult &result,
                                                   bool final_call);
  void run_tools(const std::vector<amplifier::ToolCallBlock> &calls);

  // The turn's cancellation level: what cancel() raised, or what the host reports for the
  // call (which also covers a cancel that came before the turn registered itself).
  amp_cancel_level cancel_level();
  void absorb(const HookOutcome &outcome);
  void store(const boost::json::object &message);
  void store_injections();
  void close_transcript(const TurnOutcome &outcome) noexcept;

  const amp::sdk::Host &host_;
  const LoopConfig &config_;
  CallPacer &pacer_;
  std::shared_ptr<TurnSignal> signal_;
  amp_call_id call_;

  std::string provider_;
  boost::json::array tool_specs_;
  std::set<std::string, std::less<>> tool_names_;
  std::int64_t iterations_ = 0;  // provider calls made
  std::string last_text_;        // text of the last assistant response
  std::string last_stored_role_;
  std::vector<Injection> injections_to_store_;
  std::vector<Injection> ephemeral_for_next_request_;
  // Tool calls of the stored assistant message whose results are not stored yet.
  std::vector<amplifier::ToolCallBlock> unanswered_calls_;
};

}  // namespace amplifier::orchestrator

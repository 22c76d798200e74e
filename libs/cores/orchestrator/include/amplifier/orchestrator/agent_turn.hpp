// One turn of an agent loop: prompt -> (provider call -> parallel tools)* -> answer. Shared by
// loop-basic and loop-streaming, which differ only in their LoopPolicy (loop_config.hpp).
#pragma once
#include "amplifier/orchestrator/call_pacer.hpp"
#include "amplifier/orchestrator/hook_outcome.hpp"
#include "amplifier/orchestrator/loop_config.hpp"
#include "amplifier/orchestrator/provider_call.hpp"
#include "amplifier/orchestrator/session_ledger.hpp"
#include "amplifier/orchestrator/task.hpp"
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

// What one turn is asked: the prompt, and optionally a role of the plan's routing for this
// turn only (serve's "route", run --route), over the loop's `route`.
struct TurnInput {
  std::string prompt;
  std::optional<std::string> route;
  // The session's mode (the kernel's turn input says it): kept in the stored prompt's metadata,
  // so the transcript shows which mode each turn ran in.
  std::optional<std::string> mode;
};

// A coroutine (task.hpp): its steps run on the host's worker pool, one at a time, and between
// them it holds no thread while it waits for a provider, its tools or a pacing delay. The only
// other threads involved are the providers' (stream forwarding, terminal events) and the
// canceller's; both reach the turn only through its TurnSignal, which resumes it.
class AgentTurn {
 public:
  AgentTurn(const amp::sdk::Host &host, const LoopConfig &config, CallPacer &pacer,
            SessionLedger &ledger, std::shared_ptr<TurnSignal> signal, amp_call_id call);

  // Never throws: any failure becomes an error outcome. Ends with a transcript in which every
  // tool call has a result and the last message this turn stored is the assistant's.
  Task<TurnOutcome> run(TurnInput input);

  // What this turn spent: its own calls and what its children spent meanwhile (the caller of a
  // child session rolls this up, never the child's whole ledger, which a resumed child carries
  // over from its earlier turns).
  cost::Totals spent() const;

 private:
  Task<TurnOutcome> run_steps(TurnInput input);
  // The providers this turn tries, in order: the asked role's (an error naming the roles when
  // the plan's routing has no such role), else the loop's role, else none (select_provider).
  void choose_route(const std::optional<std::string> &asked, const boost::json::value &providers);
  // One provider call and what follows it. Completes with the outcome when the turn ends here.
  Task<std::optional<TurnOutcome>> iterate(bool final_call);

  std::optional<TurnOutcome> submit_prompt(const std::string &prompt,
                                          const std::optional<std::string> &mode);
  // The ChatRequest as JSON text, spliced from the context's messages as they come: a long
  // history is copied, never parsed and re-serialised (only ephemeral injections, which change
  // the last messages, take the slow way). `after_overflow`: the provider refused the last
  // request as too long, and the context is told so (context_overflow).
  std::string build_request(bool final_call, const std::vector<Injection> &ephemeral,
                            bool after_overflow);
  std::string context_hints(bool after_overflow) const;

  // Tells one request text from another without keeping a second copy of a long history.
  struct RequestFingerprint {
    std::size_t size = 0;
    std::size_t hash = 0;
    bool operator==(const RequestFingerprint &) const = default;
  };
  static RequestFingerprint fingerprint_of(std::string_view request);
  static bool is_context_overflow(const ProviderResult &result);
  // One retry with a compacted request after a context_length error (never the same request
  // again): provider:retry {reason: "context_length"}, then the call. Completes with `failed`
  // when compaction changed nothing.
  Task<ProviderResult> retry_compacted(bool final_call, const std::vector<Injection> &ephemeral,
                                       RequestFingerprint refused, ProviderResult failed);
  Task<std::optional<TurnOutcome>> handle_response(ProviderResult result, bool final_call);
  // The provider of the route after the current one, when `result` failed in a way safe to fall
  // back on before any content was shown (iterate then announces provider:fallback {from, to,
  // reason, error}, gates, paces and asks it; the turn stays on it, and the answer's metadata
  // says where it fell back from).
  std::optional<std::string> next_in_route(const ProviderResult &result) const;
  // Runs one response's calls and stores their results. Completes with the reason when a tool
  // hook asked for the turn to end.
  Task<std::optional<std::string>> run_tools(std::vector<amplifier::ToolCallBlock> calls);
  // The turn:stop gate; true when a hook keeps the turn going (its reason is stored).
  bool held_at_stop();
  // Prices the answer, adds it to the ledger and writes usage, cost and the ledger into the
  // answer's metadata (stored with it); ledger:update, then budget:warning for a limit that
  // reached 80 %. Completes nothing: the budget is checked before the next call.
  void record_cost(ProviderResult &result);
  // Rolls what a child session spent (a delegate result's "report") into this session's
  // ledger. True when there was a report.
  bool take_child_report(ToolOutcome &outcome);
  // The ledger as stored with a message: with every answer, the closing note, and a tool
  // result that brought a child's spending, so a resume finds the whole of it.
  boost::json::object ledger_json() const;
  // budget:exceeded, and the outcome that ends the turn for it.
  TurnOutcome over_budget(const cost::BudgetMeasure &limit);
  // Cuts a result longer than max_tool_result_chars and says so (tool:result_cut).
  void limit_result(ToolOutcome &outcome);

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
  SessionLedger &ledger_;
  cost::Totals turn_totals_;      // this turn's calls
  cost::Totals children_spent_;  // what the children this turn started spent
  std::shared_ptr<TurnSignal> signal_;
  amp_call_id call_;

  std::string provider_;
  std::vector<std::string> route_;  // the plan's routing for this loop's role; may be empty
  bool model_applies_ = true;       // false once the turn fell back to another provider
  std::string tool_specs_json_;  // the host's tools_list, as sent in every request
  bool has_tools_ = false;
  std::set<std::string, std::less<>> tool_names_;
  std::int64_t iterations_ = 0;  // provider calls made
  int stop_continuations_ = 0;   // turn:stop holds so far this turn
  std::string last_text_;        // text of the last assistant response
  std::string last_stored_role_;
  std::vector<Injection> injections_to_store_;
  std::vector<Injection> ephemeral_for_next_request_;
  // Tool calls of the stored assistant message whose results are not stored yet.
  std::vector<amplifier::ToolCallBlock> unanswered_calls_;
};

}  // namespace amplifier::orchestrator

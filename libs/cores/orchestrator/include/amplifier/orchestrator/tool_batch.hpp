// The tool calls of one response, run in parallel with their hooks, results in call order.
#pragma once
#include "amplifier/model.hpp"
#include "amplifier/orchestrator/hook_outcome.hpp"
#include "amplifier/orchestrator/task.hpp"
#include "amplifier/orchestrator/turn_signal.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace amplifier::orchestrator {

// The result of one tool call as the model will read it.
struct ToolOutcome {
  std::string tool_call_id;
  std::string tool_name;
  boost::json::value output;
  bool is_error = false;
  // The result's "report" (a delegate's: its child session's ledger), which the model is not
  // shown; null when it has none.
  boost::json::value report;
};

struct ToolBatch {
  std::vector<ToolOutcome> outcomes;         // one per call, in the original call order
  std::vector<Injection> to_store;           // hook injections to add after the results
  std::vector<Injection> for_next_request;   // ephemeral hook injections
  // Set when a tool:pre or tool:post hook asked for the turn to end (HookOutcome::end_turn).
  std::optional<std::string> end_turn;
};

// Runs `calls` (one response's tool calls) in parallel:
//  - per call, in order: tool:pre (ask_user -> the user is asked, see settle_approval; deny
//    or a refused approval -> "Denied by hook: <reason>" error result); a tool
//    not in `available` -> tool:error and an error result naming the available tools; else
//    host.tool_execute. Every call is started before any is waited for.
//  - as each finishes: tool:post {..., result}; a hook's replacement of data.result replaces
//    the result. A failed call (non-OK terminal status) -> tool:error and an error result.
//  - graceful cancellation: calls not yet started are not started (error result "not run");
//    running ones finish and keep their results.
//  - immediate cancellation: unfinished calls are cancelled, given `cancel_grace` to end,
//    and otherwise get a synthetic "cancelled" error result.
// Every call gets exactly one outcome, so the transcript stays valid.
// `calls` and `available` must outlive the task (the caller awaits it at once).
Task<ToolBatch> run_tool_batch(const amp::sdk::Host &host, std::shared_ptr<TurnSignal> signal,
                               const std::vector<ToolCallBlock> &calls,
                               const std::set<std::string, std::less<>> &available,
                               std::chrono::milliseconds cancel_grace);

// The outcome for a call that was never run, e.g. after the iteration limit.
ToolOutcome not_run_outcome(const ToolCallBlock &call, std::string_view why);

// {"role":"tool","tool_call_id","name","content":[{"type":"tool_result",...}]}; an error
// result carries "is_error": true in its block.
boost::json::object tool_result_message(const ToolOutcome &outcome);

// A fresh random id correlating the calls of one response (tool:pre's parallel_group_id).
std::string new_parallel_group_id();

}  // namespace amplifier::orchestrator

// The kernel events an orchestrator emits. The names are part of the host protocol (they
// mirror amplifier/events.hpp in the kernel, which modules do not link).
#pragma once
#include <string_view>

namespace amplifier::orchestrator::event {
inline constexpr std::string_view kExecutionStart = "execution:start";
inline constexpr std::string_view kExecutionEnd = "execution:end";
inline constexpr std::string_view kPromptSubmit = "prompt:submit";
inline constexpr std::string_view kPromptComplete = "prompt:complete";
inline constexpr std::string_view kProviderRequest = "provider:request";
inline constexpr std::string_view kProviderResponse = "provider:response";
inline constexpr std::string_view kProviderError = "provider:error";
inline constexpr std::string_view kProviderRetry = "provider:retry";
// A turn moved to the next provider of its route: {from, to, reason, error}.
inline constexpr std::string_view kProviderFallback = "provider:fallback";
inline constexpr std::string_view kContentBlockStart = "content_block:start";
inline constexpr std::string_view kContentBlockDelta = "content_block:delta";
inline constexpr std::string_view kContentBlockEnd = "content_block:end";
inline constexpr std::string_view kToolPre = "tool:pre";
inline constexpr std::string_view kToolPost = "tool:post";
inline constexpr std::string_view kToolError = "tool:error";
inline constexpr std::string_view kApprovalRequired = "approval:required";
inline constexpr std::string_view kApprovalGranted = "approval:granted";
inline constexpr std::string_view kApprovalDenied = "approval:denied";
inline constexpr std::string_view kOrchestratorComplete = "orchestrator:complete";

// Events of our own (announced on the observability.events channel).
// The model answered without asking for a tool and the turn is about to end:
// {response, iteration, stop_hook_active, continuations}. A `deny` keeps it going: the reason
// is stored as a user message and the provider is asked again (Claude Code's Stop hook), at
// most kMaxStopContinuations times a turn (Claude Code ends after 8 consecutive blocks) and within the iteration limit.
inline constexpr std::string_view kTurnStop = "turn:stop";
inline constexpr int kMaxStopContinuations = 8;
// A tool result was cut to max_tool_result_chars before it entered the context.
inline constexpr std::string_view kToolResultCut = "tool:result_cut";
// After each provider answer: {provider, model, call, turn, ledger} (libs/cores/cost).
inline constexpr std::string_view kLedgerUpdate = "ledger:update";
// A limit of the session's budget reached 80 %: {limit, used, max, fraction}; once a session.
inline constexpr std::string_view kBudgetWarning = "budget:warning";
// A limit was reached and the turn ends before its next provider call: {limit, used, max}.
inline constexpr std::string_view kBudgetExceeded = "budget:exceeded";
}  // namespace amplifier::orchestrator::event

// Canonical kernel event names (mirrors Amplifier's list). Use these constants, never literals.
#pragma once
#include <array>
#include <string_view>

namespace amplifier::events {
inline constexpr std::string_view kSessionStart = "session:start";
inline constexpr std::string_view kSessionEnd = "session:end";
inline constexpr std::string_view kSessionFork = "session:fork";
inline constexpr std::string_view kSessionResume = "session:resume";
inline constexpr std::string_view kPromptSubmit = "prompt:submit";
inline constexpr std::string_view kPromptComplete = "prompt:complete";
inline constexpr std::string_view kProviderRequest = "provider:request";
inline constexpr std::string_view kProviderResponse = "provider:response";
inline constexpr std::string_view kProviderRetry = "provider:retry";
inline constexpr std::string_view kProviderError = "provider:error";
inline constexpr std::string_view kProviderThrottle = "provider:throttle";
inline constexpr std::string_view kProviderToolSequenceRepaired = "provider:tool_sequence_repaired";
inline constexpr std::string_view kLlmRequest = "llm:request";
inline constexpr std::string_view kLlmResponse = "llm:response";
inline constexpr std::string_view kContentBlockStart = "content_block:start";
inline constexpr std::string_view kContentBlockDelta = "content_block:delta";
inline constexpr std::string_view kContentBlockEnd = "content_block:end";
inline constexpr std::string_view kThinkingDelta = "thinking:delta";
inline constexpr std::string_view kThinkingFinal = "thinking:final";
inline constexpr std::string_view kToolPre = "tool:pre";
inline constexpr std::string_view kToolPost = "tool:post";
inline constexpr std::string_view kToolError = "tool:error";
inline constexpr std::string_view kContextPreCompact = "context:pre_compact";
inline constexpr std::string_view kContextPostCompact = "context:post_compact";
inline constexpr std::string_view kContextCompaction = "context:compaction";
// A context that keeps the session in a shared store heard another host ask for the session
// ({"session_id"}): a host that can give it back now (serve, when the session is idle) ends
// it, which frees it for the other. Emitted from the context's own thread.
inline constexpr std::string_view kContextReleaseRequested = "context:release_requested";
// What another host passed to this session through the shared store ({"session_id", "signal":
// {...}}: the sessions_query op "signal"); serve sends a cancel or an approval's answer this
// way to the server running the turn. Emitted from the context's own thread.
inline constexpr std::string_view kContextSignal = "context:signal";
inline constexpr std::string_view kOrchestratorComplete = "orchestrator:complete";
inline constexpr std::string_view kExecutionStart = "execution:start";
inline constexpr std::string_view kExecutionEnd = "execution:end";
inline constexpr std::string_view kUserNotification = "user:notification";
inline constexpr std::string_view kArtifactWrite = "artifact:write";
inline constexpr std::string_view kArtifactRead = "artifact:read";
inline constexpr std::string_view kPolicyViolation = "policy:violation";
inline constexpr std::string_view kApprovalRequired = "approval:required";
inline constexpr std::string_view kApprovalGranted = "approval:granted";
inline constexpr std::string_view kApprovalDenied = "approval:denied";
inline constexpr std::string_view kCancelRequested = "cancel:requested";
inline constexpr std::string_view kCancelCompleted = "cancel:completed";
inline constexpr std::string_view kModuleLoadFailed = "module:load_failed";
// A module in its own process died or was killed (isolation: process); it restarts on its
// next call unless it crashed too often.
inline constexpr std::string_view kModuleCrashed = "module:crashed";
inline constexpr std::string_view kModuleRestarted = "module:restarted";
// The session's mode changed (Session::set_mode): {from, to, source}, null for no mode.
inline constexpr std::string_view kModeChanged = "mode:changed";
// A message for the running turn (Session::steer): {message}; and when it reached the
// conversation: {messages, at: "provider:request" | "turn:stop"}.
inline constexpr std::string_view kSteeringQueued = "steering:queued";
inline constexpr std::string_view kSteeringDelivered = "steering:delivered";
// The turn:stop gate of the agent loop (a hook's deny keeps the turn going), which steering uses.
inline constexpr std::string_view kTurnStop = "turn:stop";

inline constexpr std::array kAll = {
    kSessionStart, kSessionEnd, kSessionFork, kSessionResume, kPromptSubmit, kPromptComplete,
    kProviderRequest, kProviderResponse, kProviderRetry, kProviderError, kProviderThrottle,
    kProviderToolSequenceRepaired, kLlmRequest, kLlmResponse, kContentBlockStart,
    kContentBlockDelta, kContentBlockEnd, kThinkingDelta, kThinkingFinal, kToolPre, kToolPost,
    kToolError, kContextPreCompact, kContextPostCompact, kContextCompaction,
    kContextReleaseRequested, kContextSignal, kOrchestratorComplete, kExecutionStart,
    kExecutionEnd, kUserNotification, kArtifactWrite, kArtifactRead, kPolicyViolation,
    kApprovalRequired, kApprovalGranted, kApprovalDenied, kCancelRequested, kCancelCompleted,
    kModuleLoadFailed, kModuleCrashed, kModuleRestarted, kModeChanged, kSteeringQueued,
    kSteeringDelivered};
}  // namespace amplifier::events

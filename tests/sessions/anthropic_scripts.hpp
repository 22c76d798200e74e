// Scripted Anthropic Messages streams for load tests and benchmarks against the loopback
// server: a paced text answer whose deltas carry their send time, and a bash tool call. Shared
// by the many-sessions harness (one process) and bench_serve (the real `amplifier serve`).
#pragma once
#include "amplifier/loopback/loopback_server.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace amp_test {

// 20 characters the loopback server overwrites, as it sends a delta, with the send time
// (steady_clock ns). Each text delta of a paced answer reads "t=<stamp>;".
inline constexpr std::string_view kSendTimeStamp = "%%%%%%%%%%%%%%%%%%%%";

// One Anthropic Messages stream: its head in one piece, then `deltas` text deltas in a piece
// each, `interval` apart (paced by the server's timers), then its tail.
amplifier::loopback::ScriptedResponse paced_answer(int deltas, std::chrono::milliseconds interval);

// A response asking for one bash command, whole.
amplifier::loopback::ScriptedResponse bash_call(const std::string &command);

// The send time a delta's text carries ("t=<20 digits>;" anywhere in `text`), if any.
std::optional<std::int64_t> send_time_in(std::string_view text);

}  // namespace amp_test

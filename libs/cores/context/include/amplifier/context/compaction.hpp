// Compaction: making a conversation fit the token budget of one request.
//
// It works on a copy and shapes the request only; the stored history never changes. Stages
// run in order until the estimate is at or below the target:
//   1. truncate_tool_results: the oldest tool results are cut to their beginning plus a note
//      (the results of the latest tool round stay whole: the model is about to read them);
//   2. drop_old_turns: whole turns (a user message and everything up to the next one) are
//      dropped, oldest first, never the last turn;
//   3. drop_old_tool_rounds: inside the last turn, whole tool rounds (an assistant message and
//      the results that answer it) are dropped, oldest first, never the latest round.
// System (and developer) messages are never dropped. Because turns and rounds go as a whole, a
// tool call and its results always stay together or leave together, and what remains still
// starts each turn with its user message.
#pragma once
#include <boost/json/array.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace amplifier::context {

struct CompactionLimits {
  std::int64_t target = 0;    // stop once the estimate is at or below this
  std::int64_t overhead = 0;  // tokens of the request outside the messages (see UsageCalibration)
};

struct CompactionReport {
  std::size_t messages_before = 0;
  std::size_t messages_after = 0;
  std::int64_t tokens_before = 0;  // estimates, overhead included
  std::int64_t tokens_after = 0;
  std::size_t truncated_tool_results = 0;
  std::size_t dropped_messages = 0;
  std::vector<std::string> stages;  // the stages that changed something, in order
  bool within_target = false;       // false: even the last turn alone is over the target
};

struct Compaction {
  boost::json::array messages;
  CompactionReport report;
};

// Estimated tokens of a request made of `messages`, overhead included.
std::int64_t estimate_request_tokens(const boost::json::array &messages, std::int64_t overhead);

// The compacted `messages` (see the stages above). Taken by value: pass a copy to keep the
// original, or move a copy that is yours anyway.
Compaction compact_messages(boost::json::array messages, const CompactionLimits &limits);

// The characters of a tool result kept by stage 1.
inline constexpr std::size_t kKeptToolResultChars = 400;

}  // namespace amplifier::context

// Repairs a conversation loaded on resume so that every provider accepts it.
//
// A session killed mid-turn leaves a transcript that ends badly: tool calls without results
// (killed while the tools ran), or a user or tool message with no assistant message after it
// (killed while the provider answered; the next prompt would then make two user messages in a
// row, which providers reject with HTTP 400). Damaged lines, which the loader skips, can also
// leave a tool result whose call is gone.
//
// The repair:
// - gives every unanswered tool call a synthetic error result, right after the results its
//   message did get (in place when later messages follow, which only damaged lines cause);
// - drops tool results that answer no open call (orphans and duplicates);
// - ends a conversation whose last turn is unfinished with a short synthetic assistant note.
// Synthetic messages carry "metadata": {"synthetic": "resume"}.
#pragma once
#include "amplifier/context/provider_adaptation.hpp"

#include <cstddef>
#include <vector>

namespace amplifier::context {

struct RepairReport {
  std::size_t synthetic_tool_results = 0;
  std::size_t closing_messages = 0;
  std::size_t dropped_tool_results = 0;
  bool changed() const {
    return synthetic_tool_results + closing_messages + dropped_tool_results > 0;
  }
};

struct Repair {
  // The loaded conversation with in-place repairs (synthetic results before later messages,
  // orphans removed). It differs from what was loaded only when lines were damaged.
  std::vector<Entry> history;
  // Messages to add at the end: results for the last unanswered calls and the closing note.
  // A persisting context appends them to its transcript like any other message.
  std::vector<boost::json::value> tail;
  RepairReport report;
};

Repair repair_for_resume(std::vector<Entry> loaded);

// The texts of the synthetic messages.
inline constexpr std::string_view kInterruptedToolText =
    "Not run to completion: the session ended while this tool call was in progress, and it was "
    "resumed later. The result is unknown.";
inline constexpr std::string_view kInterruptedTurnText =
    "[The previous turn was interrupted before the assistant finished responding.]";

}  // namespace amplifier::context

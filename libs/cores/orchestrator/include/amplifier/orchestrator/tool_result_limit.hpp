// The cap on what one tool result may put into the context. A tool that returns megabytes
// (a log, a generated file, a directory listing of a build tree) would otherwise enter the
// history whole and be sent with every later request: compaction only cuts old results, never
// the latest round, so such a result would fill the window turn after turn.
#pragma once
#include "amplifier/orchestrator/tool_batch.hpp"

#include <cstddef>
#include <optional>
#include <string>

namespace amplifier::orchestrator {

struct ToolResultCut {
  std::size_t original_chars = 0;  // of the output's text (JSON text for a structured output)
  std::size_t kept_chars = 0;
};

// Cuts `outcome.output` to its first `max_chars` characters (code points, never splitting
// one) followed by a note saying how long it was and how much is shown. A structured output
// longer than that becomes its JSON text, cut the same way. `max_chars` 0 means no limit.
// Returns what was cut, or nullopt when the output fits.
std::optional<ToolResultCut> limit_tool_output(ToolOutcome &outcome, std::size_t max_chars);

// The note that follows a cut output:
// "[output cut: 1234567 characters, showing the first 100000; ...]".
std::string tool_output_cut_note(const ToolResultCut &cut);

}  // namespace amplifier::orchestrator

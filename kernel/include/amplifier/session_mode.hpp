// A session's mode: a named overlay on which tools may run and what the model is told (plan,
// review, explore, or the operator's own; host/runtime/modes.hpp defines and finds them). The
// kernel enforces it where tools are dispatched (Coordinator::start_tool_call), so a tool the
// mode refuses never runs whatever the orchestrator or the model does: the call gets an error
// result the model can read. A mode only narrows: it can refuse tools and ask before others,
// never allow what the plan, an approval hook or the confinement refuses.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace amplifier {

struct SessionMode {
  std::string name;
  std::string description;
  // Glob patterns (fnmatch) over tool names. With allowed_tools, only the tools it matches may
  // run; denied_tools refuses the tools it matches either way; ask_tools asks the user before
  // each call of the tools it matches (the coordinator's approval handler; nobody to ask: no).
  std::vector<std::string> allowed_tools;
  bool allowed_tools_set = false;  // an empty allowed_tools then means "no tool"
  std::vector<std::string> denied_tools;
  std::vector<std::string> ask_tools;
  // Told to the model with every provider request while the mode holds (an ephemeral
  // injection: never stored, so leaving the mode leaves no stale instruction behind).
  std::string instructions;
  std::string source;  // where it was defined: "built-in", a plan, a file
};

// Why `tool` may not run in `mode`, as the model will read it; "" when it may.
std::string mode_refusal(const SessionMode &mode, std::string_view tool);

// Whether the user must be asked before `tool` runs in `mode`.
bool mode_asks(const SessionMode &mode, std::string_view tool);

// What the model is told while `mode` holds: its name, the tools it refuses, its instructions.
std::string mode_reminder(const SessionMode &mode);

}  // namespace amplifier

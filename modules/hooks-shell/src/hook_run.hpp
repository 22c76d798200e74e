// Running the commands of one event and reading their answers as Claude Code documents them.
//
// Trust: the commands come from the operator (the plan's command_hooks, settings_files, the
// user's hooks.json and, when the plan enables it, ~/.claude/settings.json) or from a project
// folder the operator trusted (its .amplifier/hooks.json, .claude/settings*.json); see
// hooks_shell.cpp, which decides which files are read. Nothing a model or a serve client
// writes is run: the event's JSON goes to a command's stdin, never into its command line.
#pragma once
#include "hook_settings.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace hooks_shell {

struct CommandAnswer {
  std::string label;  // the command, cut for messages
  bool timed_out = false;
  bool cancelled = false;
  bool failed_to_start = false;
  int exit_code = -1;  // -1: killed by a signal or timed out
  std::string out;
  std::string err;
  std::optional<boost::json::object> json;  // stdout, when it starts with '{' and is an object
};

struct RunSettings {
  std::filesystem::path project_dir;  // the commands' working folder and $CLAUDE_PROJECT_DIR
  std::chrono::seconds timeout{600};  // for an entry without its own
  // Polled while commands run: true (the turn was cancelled) kills them; their answers count
  // for nothing.
  std::function<bool()> cancelled;
};

// Runs each command (identical ones once) with `input_json` on its stdin, in parallel, and
// returns their answers in the order given. Never throws for a command that fails: that is an
// answer too.
std::vector<CommandAnswer> run_commands(const std::vector<const HookCommand *> &commands,
                                        const std::string &input_json, const RunSettings &settings);

// What the answers of one event ask for, combined (Claude Code's newest rules: JSON on stdout is
// read whatever the exit code; exit 2 blocks and no JSON "allow" overrides it; another failing
// code without JSON is a non-blocking error shown to the user; a timeout is ignored).
struct Verdict {
  bool block = false;
  std::string feedback;  // for the model: the blocking stderrs or reasons
  bool ask = false;
  std::string ask_reason;
  std::optional<boost::json::object> updated_input;  // PreToolUse's updatedInput (the first)
  std::string context;  // additionalContext, and plain stdout where it counts as context
  bool stop = false;    // "continue": false
  std::string stop_reason;
  std::vector<std::string> for_user;  // systemMessage, failures, timeouts
};

Verdict judge(HookEventKind kind, const std::vector<CommandAnswer> &answers);

}  // namespace hooks_shell

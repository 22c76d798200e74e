// Claude Code's hook configuration, read as people have it: a JSON object whose "hooks" member
// maps an event name (PreToolUse, PostToolUse, UserPromptSubmit, Stop, SessionStart,
// SessionEnd) to matcher groups, each {"matcher": "...", "hooks": [{"type": "command",
// "command": "...", "timeout": seconds}]}. Several sources merge: every group of every source
// runs (Claude Code merges settings levels the same way).
//
// Matchers (Claude Code's rules): "*", "" or none match everything; a matcher of only letters,
// digits, '_', '-', spaces, ',' and '|' is a list of exact names split at '|' and ','; anything
// else is a regular expression searched anywhere in the name (ECMAScript, as Claude Code's
// JavaScript RegExp.test), so "Edit.*" also matches "NotebookEdit" and "^Edit$" does not.
// Tool events match the tool's name; SessionStart matches its source (startup, resume);
// UserPromptSubmit and Stop take no matcher (one is ignored, as Claude Code does).
#pragma once
#include <boost/json/value.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace hooks_shell {

enum class HookEventKind { pre_tool_use, post_tool_use, user_prompt_submit, stop, session_start, session_end };
inline constexpr std::size_t kEventKinds = 6;

std::string_view claude_name(HookEventKind kind);
std::optional<HookEventKind> event_kind_named(std::string_view name);

class Matcher {
 public:
  // Throws std::invalid_argument naming the pattern when it is not a valid expression.
  explicit Matcher(std::string pattern);
  bool matches(std::string_view name) const;
  const std::string &pattern() const { return pattern_; }

 private:
  std::string pattern_;
  bool everything_ = false;
  std::vector<std::string> exact_;
  std::optional<std::regex> expression_;
};

// One command to run.
struct HookCommand {
  std::string command;                // run with /bin/sh -c, unless `args` is set
  std::vector<std::string> args;      // Claude Code's `args`: argv, no shell
  std::optional<std::chrono::seconds> timeout;  // the entry's own; else the event's default
  std::string source;                 // where it was read, for messages
  std::string key() const;            // what identical commands share (run once an event)
};

struct MatcherGroup {
  Matcher matcher;
  std::vector<HookCommand> commands;
};

struct HookTable {
  std::vector<MatcherGroup> groups[kEventKinds];
  const std::vector<MatcherGroup> &of(HookEventKind kind) const { return groups[static_cast<int>(kind)]; }
  bool empty() const;
};

using Warn = std::function<void(const std::string &)>;

// Adds the groups of `hooks` (the object under "hooks", from `source`) to `table`. An event
// amplifier does not run, a handler type other than "command", or an unknown handler field is
// said through `warn` and skipped; a malformed entry throws std::invalid_argument naming
// `source` and the place.
void add_hooks(HookTable &table, const boost::json::value &hooks, const std::string &source,
               const Warn &warn);

// Reads a settings file ({"hooks": {...}}, other members ignored) into `table`. A file that does
// not exist adds nothing; one that cannot be read or parsed throws std::invalid_argument naming
// it.
void add_settings_file(HookTable &table, const std::string &path, const Warn &warn);

}  // namespace hooks_shell

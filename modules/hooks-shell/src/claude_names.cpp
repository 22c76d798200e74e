#include "claude_names.hpp"

#include <array>

namespace hooks_shell {
namespace {

struct ToolAlias {
  std::string_view ours;
  std::string_view claude;
  bool path_is_file_path;  // our "path" is Claude Code's "file_path"
};

// Tool names from Claude Code's tools reference; input fields that differ from ours.
constexpr std::array<ToolAlias, 10> kAliases = {{
    {"bash", "Bash", false},
    {"read_file", "Read", true},
    {"write_file", "Write", true},
    {"edit_file", "Edit", true},
    {"glob", "Glob", false},
    {"grep", "Grep", false},
    {"list_directory", "LS", false},
    {"web_fetch", "WebFetch", false},
    {"todo", "TodoWrite", false},
    {"delegate", "Task", false},
}};

const ToolAlias *alias_of(std::string_view ours) {
  for (const auto &alias : kAliases)
    if (alias.ours == ours) return &alias;
  return nullptr;
}

boost::json::object renamed(boost::json::object input, std::string_view from, std::string_view to) {
  if (auto *value = input.if_contains(from); value && !input.contains(to)) {
    boost::json::value moved = std::move(*value);
    input.erase(from);
    input[to] = std::move(moved);
  }
  return input;
}

}  // namespace

std::string claude_tool_name(std::string_view name) {
  const ToolAlias *alias = alias_of(name);
  return std::string(alias ? alias->claude : name);
}

boost::json::object claude_tool_input(std::string_view name, boost::json::object input) {
  const ToolAlias *alias = alias_of(name);
  if (!alias || !alias->path_is_file_path) return input;
  return renamed(std::move(input), "path", "file_path");
}

boost::json::object amplifier_tool_input(std::string_view name, boost::json::object input) {
  const ToolAlias *alias = alias_of(name);
  if (!alias || !alias->path_is_file_path) return input;
  return renamed(std::move(input), "file_path", "path");
}

}  // namespace hooks_shell

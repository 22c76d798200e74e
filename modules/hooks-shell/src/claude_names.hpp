// How amplifier's tools look to a hook written for Claude Code: its tool names (Bash, Read,
// Write, Edit, ...) and its input field names (file_path where ours say path), so that a
// matcher of "Write|Edit" and a script reading .tool_input.file_path work unchanged. A tool
// with no Claude Code counterpart keeps its own name and input.
#pragma once
#include <boost/json/object.hpp>

#include <string>
#include <string_view>

namespace hooks_shell {

// Claude Code's name for our tool `name` ("bash" -> "Bash"), or `name` itself.
std::string claude_tool_name(std::string_view name);

// Our tool's input as Claude Code's tool would take it (path -> file_path for the file tools).
boost::json::object claude_tool_input(std::string_view name, boost::json::object input);

// The reverse, for a hook's updatedInput: Claude Code's field names back to ours.
boost::json::object amplifier_tool_input(std::string_view name, boost::json::object input);

}  // namespace hooks_shell

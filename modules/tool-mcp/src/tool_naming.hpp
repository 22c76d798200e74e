// The names server tools get in the session: "mcp_<server>_<tool>", made fit for every vendor's
// tool-name rules (1-64 of [A-Za-z0-9_-]).
#pragma once
#include <set>
#include <string>
#include <string_view>

namespace tool_mcp {

inline constexpr std::size_t kMaxToolNameLength = 64;

// Characters outside [A-Za-z0-9_-] become '_'. A name longer than 64 characters keeps its
// first 55 and ends in '_' and 8 hex digits of a hash of the whole name, so two long names
// that share their beginning stay apart and the same tool gets the same name every session.
std::string exposed_tool_name(std::string_view server, std::string_view tool);

// `name`, or when `taken` already holds it (two tools that sanitise alike: "a.b", "a_b"), the
// same with a hash of `original` as suffix. Adds the result to `taken`.
std::string unique_tool_name(std::string name, std::string_view original,
                             std::set<std::string> &taken);

}  // namespace tool_mcp

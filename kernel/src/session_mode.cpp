#include "amplifier/session_mode.hpp"

#include <fnmatch.h>

#include <algorithm>

namespace amplifier {
namespace {

bool any_matches(const std::vector<std::string> &patterns, std::string_view tool) {
  const std::string name(tool);
  return std::any_of(patterns.begin(), patterns.end(), [&](const std::string &pattern) {
    return ::fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
  });
}

std::string joined(const std::vector<std::string> &items) {
  std::string out;
  for (const auto &item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

}  // namespace

std::string mode_refusal(const SessionMode &mode, std::string_view tool) {
  const bool outside_allowed = mode.allowed_tools_set && !any_matches(mode.allowed_tools, tool);
  if (!outside_allowed && !any_matches(mode.denied_tools, tool)) return {};
  std::string why = "Tool '" + std::string(tool) + "' is not available in " + mode.name + " mode";
  if (mode.allowed_tools_set)
    why += mode.allowed_tools.empty() ? " (no tool may run)"
                                      : " (it allows only: " + joined(mode.allowed_tools) + ")";
  return why + ". Do not retry it; work with the tools this mode allows, or ask the user to change the mode.";
}

bool mode_asks(const SessionMode &mode, std::string_view tool) { return any_matches(mode.ask_tools, tool); }

std::string mode_reminder(const SessionMode &mode) {
  std::string text = "<system-reminder source=\"mode\">The session is in " + mode.name + " mode";
  text += mode.description.empty() ? "." : ": " + mode.description + ".";
  if (mode.allowed_tools_set)
    text += mode.allowed_tools.empty() ? " No tool may run."
                                       : " Only these tools may run: " + joined(mode.allowed_tools) + ".";
  if (!mode.denied_tools.empty()) text += " These tools are refused: " + joined(mode.denied_tools) + ".";
  if (!mode.ask_tools.empty()) text += " The user is asked before: " + joined(mode.ask_tools) + ".";
  if (!mode.instructions.empty()) text += "\n" + mode.instructions;
  return text + "</system-reminder>";
}

}  // namespace amplifier

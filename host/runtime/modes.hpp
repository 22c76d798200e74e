// Modes: named overlays on which tools may run and what the model is told (the kernel's
// SessionMode enforces them at tool dispatch). Built in:
//   plan     read-only: the model investigates and proposes; nothing is written or run
//   explore  read-only: the model finds out and explains
//   review   reads, and runs commands only when the user says yes to each
// and the operator's own, as Markdown files whose front matter says
//   description, allowed_tools, denied_tools, ask_tools   (lists of tool-name globs)
// and whose body is the instructions, or in the plan:
//   session: {modes: {NAME: {description, allowed_tools, denied_tools, ask_tools, instructions}}}
//
// Where they are found, later ones replacing earlier ones of the same name: the built-ins,
// $XDG_CONFIG_HOME/amplifier/modes/NAME.md, the plan's session.modes, then the project's
// .amplifier/modes/NAME.md. Trust: a project folder's modes are read only once the operator
// trusts the folder, and never replace a built-in or an operator's mode of the same name (a
// cloned repository must not turn "plan" into a mode that runs commands). A mode only narrows
// what may run, so any party that may start a turn (a serve client, the user at chat) may
// choose one.
#pragma once
#include "amplifier/mount_plan.hpp"
#include "amplifier/session_mode.hpp"

#include <filesystem>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace amplifier::host {

class ModeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The name that leaves every mode ("/mode off", `--mode off`, serve's "mode": "off").
inline constexpr std::string_view kNoMode = "off";

class ModeCatalog {
 public:
  // Reads the modes one session can use. A file that cannot be read is a problem reported in
  // problems(), not a failure; a malformed `session.modes` in the plan throws ModeError.
  static ModeCatalog discover(const MountPlan &plan, const std::filesystem::path &project_dir);

  // The mode named `name`; null for "off". Throws ModeError naming the modes there are.
  std::shared_ptr<const SessionMode> find(std::string_view name) const;
  const std::map<std::string, std::shared_ptr<const SessionMode>, std::less<>> &modes() const { return modes_; }
  const std::vector<std::string> &problems() const { return problems_; }

 private:
  std::map<std::string, std::shared_ptr<const SessionMode>, std::less<>> modes_;
  std::vector<std::string> problems_;
};

// Parses a mode file's text (front matter and instructions). Throws ModeError naming `origin`.
SessionMode parse_mode_markdown(std::string_view text, const std::string &origin, std::string_view name);

// ModeCatalog::discover, with each problem printed to stderr as a warning (run, chat).
ModeCatalog discover_modes(const MountPlan &plan, const std::filesystem::path &project_dir);

// One line per mode for listings: "plan  read-only: ... (built-in)".
std::string describe_modes(const ModeCatalog &catalog, const std::string &current);

}  // namespace amplifier::host

// Path templates in module configs: "~/.amplifier/sessions/{session_id}/events.jsonl".
#pragma once
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace amplifier::module_support {

// The user's home directory: $HOME, else the passwd entry of the current user.
// Throws std::runtime_error when neither is available.
std::filesystem::path home_directory();

// Expands a leading "~" ("~" alone or "~/...") to home_directory(). "~user" forms are left
// alone (rarely meant in a config, and resolving them would need another user's entry).
std::filesystem::path expand_home(std::string_view path);

// Replaces every "{session_id}" with `session_id`, then expands a leading "~".
// Throws std::invalid_argument when the template uses {session_id} and the id is empty or
// could leave its directory ("/", "\\" or ".." inside), since a session id may come from a
// user (on resume) and must not steer a write elsewhere.
std::filesystem::path expand_path_template(std::string_view path_template,
                                           std::string_view session_id);

}  // namespace amplifier::module_support

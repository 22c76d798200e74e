// Which project folders the operator trusts (README "Security"). A cloned repository is not the
// operator: what its `.amplifier/` folder says (MCP servers to start, agents) is read only once
// the operator ran `amplifier trust DIR` for it. The list is a file in the operator's config
// folder, $XDG_CONFIG_HOME/amplifier/trusted-folders: one canonical absolute path a line.
// Thread-safe: each call reads or writes the file itself.
#pragma once
#include <filesystem>
#include <vector>

namespace amplifier::folder_trust {

// $XDG_CONFIG_HOME/amplifier/trusted-folders. Throws as user_dirs::config() does.
std::filesystem::path file();

// Whether `folder` (made canonical; a folder that does not exist is not trusted) is listed.
// False when the list cannot be read.
bool is_trusted(const std::filesystem::path &folder);

// The folders listed, in the order they were added.
std::vector<std::filesystem::path> trusted();

// Adds `folder` (canonical) to the list, made 0600 in a 0700 folder if new; nothing when it is
// listed already. Throws std::runtime_error naming the folder or the file when it cannot.
std::filesystem::path trust(const std::filesystem::path &folder);

// Removes `folder` from the list; false when it was not there.
bool untrust(const std::filesystem::path &folder);

}  // namespace amplifier::folder_trust

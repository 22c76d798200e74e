// The user's folders, after the XDG Base Directory spec: one home for every place amplifier
// keeps per-user files (sessions, installed modules, the module build cache, settings).
#pragma once
#include <filesystem>

namespace amplifier::user_dirs {

// $HOME, else the passwd entry. Throws std::runtime_error when there is neither.
// Thread-safe (getpwuid_r).
std::filesystem::path home();

// $XDG_DATA_HOME / $XDG_CACHE_HOME / $XDG_CONFIG_HOME when set to an absolute path (the spec
// says to ignore a relative one), else ~/.local/share, ~/.cache, ~/.config; each with
// "amplifier" appended. Throws as home() does.
std::filesystem::path data();
std::filesystem::path cache();
std::filesystem::path config();

}  // namespace amplifier::user_dirs

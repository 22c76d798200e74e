// keys.env: the secrets `amplifier init` saves, one `NAME=value` line each, mode 0600.
// Read at the start of every command; a variable already in the environment wins.
#pragma once
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace amplifier::host {

// A shell-style variable name: a letter or '_', then letters, digits and '_'.
bool valid_variable_name(std::string_view name);

struct KeysFileContent {
  std::map<std::string, std::string> keys;
  std::vector<std::string> problems;  // "<file>:<line>: <why>", for lines that were skipped
};

// Lines are `NAME=value` (an `export ` prefix and one pair of quotes around the value are
// accepted); blank lines and lines starting with '#' are ignored. A missing file is empty.
KeysFileContent read_keys_file(const std::filesystem::path &file);

// Sets every key of keys.env that the environment does not have yet (setenv, overwrite 0).
// Called once at start-up, before any thread exists. Never throws: problems are warnings.
void load_user_keys();
// Whether load_user_keys() set `name` (so its value in the environment came from keys.env).
bool loaded_from_keys_file(const std::string &name);

// Adds or replaces `keys` in `file`, keeping its other lines as they are. The new file is
// created with mode 0600 and renamed into place, so a secret is never readable by others.
void save_keys(const std::filesystem::path &file, const std::map<std::string, std::string> &keys);

}  // namespace amplifier::host

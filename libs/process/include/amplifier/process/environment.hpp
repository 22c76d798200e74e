// A child's environment and program, worked out before it starts.
#pragma once
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace amplifier::process {

// The host's environment with `overrides` set (added or replaced), as "NAME=value" strings.
std::vector<std::string> environment_with(
    const std::vector<std::pair<std::string, std::string>> &overrides);

// The argv / envp form of `strings`: a pointer to each one's characters, then a null pointer.
// Valid while `strings` is not changed.
std::vector<char *> c_string_pointers(std::vector<std::string> &strings);

// The program `name` would run as: itself when it has a '/', else the first executable match
// in the absolute folders of `path_list` (a PATH value; empty and relative entries are
// skipped). Empty when there is none.
std::filesystem::path find_program(const std::string &name, const std::string &path_list);

// The PATH of `environment` ("NAME=value" strings), or the usual default when it has none.
std::string path_of(const std::vector<std::string> &environment);

}  // namespace amplifier::process

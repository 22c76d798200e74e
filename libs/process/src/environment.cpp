#include "amplifier/process/environment.hpp"

#include <unistd.h>

#include <map>
#include <string_view>
#include <system_error>

extern char **environ;

namespace amplifier::process {

// Trust: the host's environment is the operator's. Which of it a child sees is the caller's
// decision (tool-bash leaves credentials out; the sandbox passes an allow-list).
std::vector<std::string> environment_with(
    const std::vector<std::pair<std::string, std::string>> &overrides) {
  std::map<std::string, std::string> variables;
  for (char **entry = environ; entry && *entry; ++entry) {
    std::string_view text(*entry);
    const std::size_t equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    variables[std::string(text.substr(0, equals))] = std::string(text.substr(equals + 1));
  }
  for (const auto &[name, value] : overrides) variables[name] = value;
  std::vector<std::string> out;
  out.reserve(variables.size());
  for (const auto &[name, value] : variables) out.push_back(name + "=" + value);
  return out;
}

std::vector<char *> c_string_pointers(std::vector<std::string> &strings) {
  std::vector<char *> out;
  out.reserve(strings.size() + 1);
  for (auto &text : strings) out.push_back(text.data());
  out.push_back(nullptr);
  return out;
}

std::string path_of(const std::vector<std::string> &environment) {
  for (const auto &entry : environment)
    if (entry.starts_with("PATH=")) return entry.substr(5);
  return "/usr/local/bin:/usr/bin:/bin";
}

std::filesystem::path find_program(const std::string &name, const std::string &path_list) {
  if (name.find('/') != std::string::npos) return name;
  std::size_t start = 0;
  while (start <= path_list.size()) {
    std::size_t end = path_list.find(':', start);
    if (end == std::string::npos) end = path_list.size();
    const std::string directory = path_list.substr(start, end - start);
    start = end + 1;
    // An empty or relative entry ("." in PATH) would be looked up in whatever folder the
    // child starts in, a workspace a model may have written: never.
    if (directory.empty() || directory.front() != '/') continue;
    std::filesystem::path candidate = std::filesystem::path(directory) / name;
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
  }
  return {};
}

}  // namespace amplifier::process

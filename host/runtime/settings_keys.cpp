#include "settings_keys.hpp"

#include "settings.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <set>

#include <sys/stat.h>

namespace amplifier::host {

namespace fs = std::filesystem;

namespace {

constexpr mode_t kKeysFileMode = 0600;

// The names load_user_keys() set; written once at start-up, before any thread exists.
std::set<std::string> &names_from_keys_file() {
  static std::set<std::string> names;
  return names;
}
constexpr std::string_view kExportPrefix = "export ";

struct KeyLine {
  std::string name;
  std::string value;
};

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  return text;
}

bool is_comment_or_blank(std::string_view line) {
  line = trimmed(line);
  return line.empty() || line.front() == '#';
}

// `NAME=value`; nullopt when the line is not one.
std::optional<KeyLine> parse_key_line(std::string_view line) {
  line = trimmed(line);
  if (line.substr(0, kExportPrefix.size()) == kExportPrefix)
    line.remove_prefix(kExportPrefix.size());
  const auto equals = line.find('=');
  if (equals == std::string_view::npos) return std::nullopt;
  KeyLine key{std::string(trimmed(line.substr(0, equals))), std::string(line.substr(equals + 1))};
  if (!valid_variable_name(key.name)) return std::nullopt;
  const std::string &v = key.value;
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front())
    key.value = v.substr(1, v.size() - 2);
  return key;
}

// The value as written after `NAME=`: reading strips one pair of matching quotes, so a value
// that itself starts and ends with the same quote goes inside the other kind.
std::string encoded_value(const std::string &value) {
  if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
      value.back() == value.front())
    return (value.front() == '"' ? "'" : "\"") + value + (value.front() == '"' ? "'" : "\"");
  return value;
}

std::vector<std::string> read_lines(const fs::path &file) {
  std::vector<std::string> lines;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Secrets in a file others can read deserve a word, not a refusal (the user may mean it).
void warn_if_readable_by_others(const fs::path &file) {
  struct stat info {};
  if (::stat(file.c_str(), &info) == 0 && (info.st_mode & 077) != 0)
    std::fprintf(stderr,
                 "amplifier: warning: %s is readable by others (mode %04o); run: chmod 600 %s\n",
                 file.c_str(), static_cast<unsigned>(info.st_mode & 07777), file.c_str());
}

}  // namespace

bool valid_variable_name(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front()))) return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

KeysFileContent read_keys_file(const fs::path &file) {
  KeysFileContent content;
  const auto lines = read_lines(file);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (is_comment_or_blank(lines[i])) continue;
    if (auto key = parse_key_line(lines[i]))
      content.keys[key->name] = key->value;
    else
      content.problems.push_back(
          fmt::format("{}:{}: not a NAME=value line; ignored", file.string(), i + 1));
  }
  return content;
}

void load_user_keys() {
  try {
    const fs::path file = keys_file();
    std::error_code ec;
    if (!fs::exists(file, ec)) return;
    warn_if_readable_by_others(file);
    const KeysFileContent content = read_keys_file(file);
    for (const auto &problem : content.problems)
      std::fprintf(stderr, "amplifier: warning: %s\n", problem.c_str());
    for (const auto &[name, value] : content.keys) {
      if (std::getenv(name.c_str())) continue;  // the environment wins
      ::setenv(name.c_str(), value.c_str(), /*overwrite=*/0);
      names_from_keys_file().insert(name);
    }
  } catch (const std::exception &e) {
    std::fprintf(stderr, "amplifier: warning: keys.env not loaded: %s\n", e.what());
  }
}

bool loaded_from_keys_file(const std::string &name) {
  return names_from_keys_file().count(name) > 0;
}

void save_keys(const fs::path &file, const std::map<std::string, std::string> &keys) {
  std::string text;
  std::set<std::string> written;
  for (const auto &line : read_lines(file)) {
    const auto key = is_comment_or_blank(line) ? std::nullopt : parse_key_line(line);
    if (key && keys.count(key->name)) {
      if (written.insert(key->name).second)
        text += key->name + "=" + encoded_value(keys.at(key->name)) + "\n";
      continue;  // a second line for the same name would only shadow the new value
    }
    text += line + "\n";
  }
  for (const auto &[name, value] : keys)
    if (!written.count(name)) text += name + "=" + encoded_value(value) + "\n";
  write_file_atomically(file, text, kKeysFileMode);
}

}  // namespace amplifier::host

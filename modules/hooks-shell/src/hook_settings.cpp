#include "hook_settings.hpp"

#include "amplifier/module_support/json_util.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace hooks_shell {
namespace {

namespace json = boost::json;
namespace ms = amplifier::module_support;

constexpr std::array<std::string_view, kEventKinds> kNames = {
    "PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SessionStart", "SessionEnd"};

constexpr std::size_t kMaxMatchedName = 256;

// Claude Code's handler fields that change nothing here (a message for its spinner) or that
// it documents as having no effect.
constexpr std::array<std::string_view, 2> kQuietFields = {"statusMessage", "once"};

bool plain_name_list(std::string_view pattern) {
  return std::all_of(pattern.begin(), pattern.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-' || c == ' ' || c == ',' || c == '|';
  });
}

std::string trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(' ');
  if (first == std::string_view::npos) return {};
  return std::string(text.substr(first, text.find_last_not_of(' ') - first + 1));
}

HookCommand read_command(const json::object &entry, const std::string &where,
                         const std::string &source, const Warn &warn) {
  HookCommand command;
  command.source = source;
  for (const auto &[key, value] : entry) {
    if (key == "type") continue;
    if (key == "command") {
      if (!value.is_string() || value.get_string().empty())
        throw std::invalid_argument(where + ".command must be a non-empty string");
      command.command = std::string(value.get_string());
    } else if (key == "args") {
      if (!value.is_array()) throw std::invalid_argument(where + ".args must be a list of strings");
      for (const auto &arg : value.get_array()) {
        if (!arg.is_string()) throw std::invalid_argument(where + ".args must be a list of strings");
        command.args.emplace_back(arg.get_string());
      }
    } else if (key == "timeout") {
      if (!ms::is_integral(value) || ms::to_int64(value) < 1 || ms::to_int64(value) > 86'400)
        throw std::invalid_argument(where + ".timeout must be a whole number of seconds from 1 to 86400");
      command.timeout = std::chrono::seconds(ms::to_int64(value));
    } else if (std::find(kQuietFields.begin(), kQuietFields.end(), key) == kQuietFields.end()) {
      warn(where + ": field '" + std::string(key) + "' is not supported by hooks-shell; ignored");
    }
  }
  if (command.command.empty() && command.args.empty())
    throw std::invalid_argument(where + " has neither a command nor args");
  return command;
}

void read_group(HookTable &table, HookEventKind kind, const json::value &group_value,
                const std::string &where, const std::string &source, const Warn &warn) {
  const json::object *group = group_value.if_object();
  if (!group) throw std::invalid_argument(where + " must be an object with a \"hooks\" list");
  std::string pattern;
  if (const json::value *m = group->if_contains("matcher")) {
    if (!m->is_string()) throw std::invalid_argument(where + ".matcher must be a string");
    pattern = std::string(m->get_string());
  }
  // UserPromptSubmit, Stop and SessionEnd take no tool or source name: Claude Code ignores a
  // matcher there, and so does this.
  if (kind == HookEventKind::user_prompt_submit || kind == HookEventKind::stop ||
      kind == HookEventKind::session_end)
    pattern.clear();
  const json::array *handlers = ms::array_at(*group, "hooks");
  if (!handlers) throw std::invalid_argument(where + ".hooks must be a list of handlers");
  MatcherGroup out{Matcher(pattern), {}};
  for (std::size_t i = 0; i < handlers->size(); ++i) {
    const std::string at = where + ".hooks[" + std::to_string(i) + "]";
    const json::object *entry = (*handlers)[i].if_object();
    if (!entry) throw std::invalid_argument(at + " must be an object");
    const std::string_view type = ms::string_at(*entry, "type");
    if (type != "command") {
      warn(at + ": handler type '" + std::string(type) +
           "' is not run by hooks-shell (only \"command\"); skipped");
      continue;
    }
    out.commands.push_back(read_command(*entry, at, source, warn));
  }
  if (!out.commands.empty()) table.groups[static_cast<int>(kind)].push_back(std::move(out));
}

}  // namespace

std::string_view claude_name(HookEventKind kind) { return kNames[static_cast<int>(kind)]; }

std::optional<HookEventKind> event_kind_named(std::string_view name) {
  for (std::size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == name) return static_cast<HookEventKind>(i);
  return std::nullopt;
}

Matcher::Matcher(std::string pattern) : pattern_(std::move(pattern)) {
  if (pattern_.empty() || pattern_ == "*") {
    everything_ = true;
  } else if (plain_name_list(pattern_)) {
    std::string current;
    for (char c : pattern_ + "|") {
      if (c != '|' && c != ',') {
        current += c;
        continue;
      }
      if (std::string name = trimmed(current); !name.empty()) exact_.push_back(std::move(name));
      current.clear();
    }
  } else {
    try {
      expression_.emplace(pattern_, std::regex::ECMAScript);
    } catch (const std::regex_error &e) {
      throw std::invalid_argument("matcher '" + pattern_ + "' is not a valid regular expression: " + e.what());
    }
  }
}

bool Matcher::matches(std::string_view name) const {
  if (everything_) return true;
  // A tool name comes from the model: a name no vendor allows (they stop at 64 or 128
  // characters) is matched by nothing rather than handed to the recursive std::regex.
  if (name.size() > kMaxMatchedName) return false;
  if (expression_) return std::regex_search(name.begin(), name.end(), *expression_);
  return std::find(exact_.begin(), exact_.end(), name) != exact_.end();
}

std::string HookCommand::key() const {
  if (args.empty()) return "sh:" + command;
  std::string out = "argv";
  for (const auto &arg : args) out += '\0' + arg;
  return out;
}

bool HookTable::empty() const {
  return std::all_of(std::begin(groups), std::end(groups), [](const auto &g) { return g.empty(); });
}

void add_hooks(HookTable &table, const json::value &hooks, const std::string &source,
               const Warn &warn) {
  const json::object *events = hooks.if_object();
  if (!events) throw std::invalid_argument(source + ": \"hooks\" must be an object of events");
  for (const auto &[name, groups] : *events) {
    const std::string where = source + ": hooks." + std::string(name);
    const auto kind = event_kind_named(name);
    if (!kind) {
      std::string known;
      for (auto n : kNames) known += (known.empty() ? "" : ", ") + std::string(n);
      warn(where + ": amplifier does not run " + std::string(name) + " hooks (it runs " + known +
           "); skipped");
      continue;
    }
    if (!groups.is_array()) throw std::invalid_argument(where + " must be a list of matcher groups");
    for (std::size_t i = 0; i < groups.get_array().size(); ++i)
      read_group(table, *kind, groups.get_array()[i], where + "[" + std::to_string(i) + "]",
                 source, warn);
  }
}

void add_settings_file(HookTable &table, const std::string &path, const Warn &warn) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return;
    throw std::invalid_argument(path + " cannot be read");
  }
  std::ostringstream text;
  text << in.rdbuf();
  const json::object settings = ms::parse_json_object(text.str(), path);
  if (const json::value *hooks = settings.if_contains("hooks")) add_hooks(table, *hooks, path, warn);
}

}  // namespace hooks_shell

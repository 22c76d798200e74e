#include "modes.hpp"

#include "front_matter.hpp"

#include "amplifier/folder_trust.hpp"
#include "amplifier/user_dirs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <optional>

namespace amplifier::host {
namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

constexpr std::size_t kMaxModeFileBytes = 64 * 1024;
constexpr std::string_view kBuiltIn = "built-in";

// The tools that only read (tool-filesystem's, tool-web's), the session's own todo list, and
// delegate: a child starts in its parent's mode, so it cannot write either.
const std::vector<std::string> kReadOnlyTools = {"read_file", "list_directory", "glob", "grep",
                                                 "web_fetch", "todo", "delegate"};

std::shared_ptr<const SessionMode> built_in(std::string name, std::string description,
                                            std::vector<std::string> allowed,
                                            std::vector<std::string> ask, std::string instructions) {
  auto mode = std::make_shared<SessionMode>();
  mode->name = std::move(name);
  mode->description = std::move(description);
  mode->allowed_tools = std::move(allowed);
  mode->allowed_tools_set = true;
  mode->ask_tools = std::move(ask);
  mode->instructions = std::move(instructions);
  mode->source = std::string(kBuiltIn);
  return mode;
}

std::vector<std::shared_ptr<const SessionMode>> built_in_modes() {
  std::vector<std::string> review_tools = kReadOnlyTools;
  review_tools.push_back("bash");
  return {
      built_in("plan", "read-only: investigate and propose a plan; nothing is written or run",
               kReadOnlyTools, {},
               "Investigate with the read-only tools, then answer with a plan: the steps, the files "
               "each step changes, and the risks. Do not try to change anything: the user leaves "
               "plan mode to carry the plan out."),
      built_in("explore", "read-only: find out how things work and explain",
               kReadOnlyTools, {},
               "Read the code and documents the question needs and explain what you find, citing "
               "files and lines. Change nothing."),
      built_in("review", "read and review; each command needs the user's yes", std::move(review_tools),
               {"bash"},
               "Review the work in question (for example the output of `git diff`): report problems "
               "ordered by severity, each with the file and line and why it matters. Do not fix "
               "them; the user decides what to change."),
  };
}

// The fields of a mode, read from a YAML map (a file's front matter) or a JSON object (the plan).
struct ModeFields {
  std::function<std::vector<std::string>()> keys;
  std::function<std::optional<std::string>(const std::string &)> text;
  std::function<std::optional<std::vector<std::string>>(const std::string &)> list;
};

SessionMode mode_from(const ModeFields &fields, const std::string &origin, std::string_view name) {
  SessionMode mode;
  mode.name = std::string(name);
  mode.source = origin;
  for (const auto &key : fields.keys()) {
    if (key == "description" || key == "instructions") continue;
    if (key != "allowed_tools" && key != "denied_tools" && key != "ask_tools")
      throw ModeError(fmt::format("{}: '{}' is not a mode field (description, allowed_tools, "
                                  "denied_tools, ask_tools, instructions)", origin, key));
  }
  mode.description = fields.text("description").value_or("");
  if (auto instructions = fields.text("instructions")) mode.instructions = *instructions;
  if (auto allowed = fields.list("allowed_tools")) {
    mode.allowed_tools = std::move(*allowed);
    mode.allowed_tools_set = true;
  }
  mode.denied_tools = fields.list("denied_tools").value_or(std::vector<std::string>{});
  mode.ask_tools = fields.list("ask_tools").value_or(std::vector<std::string>{});
  return mode;
}

ModeFields yaml_fields(const YAML::Node &map, const std::string &origin) {
  return ModeFields{
      [map] {
        std::vector<std::string> keys;
        for (const auto &entry : map) keys.push_back(entry.first.Scalar());
        return keys;
      },
      [map, origin](const std::string &key) -> std::optional<std::string> {
        const YAML::Node value = map[key];
        if (!value) return std::nullopt;
        if (!value.IsScalar()) throw ModeError(fmt::format("{}: '{}' must be text", origin, key));
        return value.Scalar();
      },
      [map, origin](const std::string &key) -> std::optional<std::vector<std::string>> {
        const YAML::Node value = map[key];
        if (!value) return std::nullopt;
        if (!value.IsSequence()) throw ModeError(fmt::format("{}: '{}' must be a list of tool names", origin, key));
        std::vector<std::string> out;
        for (const auto &item : value) {
          if (!item.IsScalar()) throw ModeError(fmt::format("{}: '{}' must be a list of tool names", origin, key));
          out.push_back(item.Scalar());
        }
        return out;
      }};
}

ModeFields json_fields(const json::object &o, const std::string &origin) {
  return ModeFields{
      [&o] {
        std::vector<std::string> keys;
        for (const auto &entry : o) keys.emplace_back(entry.key());
        return keys;
      },
      [&o, origin](const std::string &key) -> std::optional<std::string> {
        const json::value *value = o.if_contains(key);
        if (!value) return std::nullopt;
        if (!value->is_string()) throw ModeError(fmt::format("{}: '{}' must be text", origin, key));
        return std::string(value->get_string());
      },
      [&o, origin](const std::string &key) -> std::optional<std::vector<std::string>> {
        const json::value *value = o.if_contains(key);
        if (!value) return std::nullopt;
        const json::array *list = value->if_array();
        std::vector<std::string> out;
        for (std::size_t i = 0; list && i < list->size(); ++i) {
          if (!(*list)[i].is_string()) list = nullptr;
          else out.emplace_back((*list)[i].get_string());
        }
        if (!list) throw ModeError(fmt::format("{}: '{}' must be a list of tool names", origin, key));
        return out;
      }};
}

bool valid_mode_name(std::string_view name) {
  return !name.empty() && name != kNoMode && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
  });
}

}  // namespace

SessionMode parse_mode_markdown(std::string_view text, const std::string &origin, std::string_view name) {
  try {
    FrontMatterText file = split_front_matter(text, origin);
    SessionMode mode = mode_from(yaml_fields(file.front, origin), origin, name);
    if (!file.body.empty()) mode.instructions = std::move(file.body);
    return mode;
  } catch (const FrontMatterError &e) {
    throw ModeError(e.what());
  } catch (const YAML::Exception &e) {
    throw ModeError(fmt::format("{}: {}", origin, e.what()));
  }
}

ModeCatalog ModeCatalog::discover(const MountPlan &plan, const fs::path &project_dir) {
  ModeCatalog catalog;
  for (auto &mode : built_in_modes()) catalog.modes_[mode->name] = mode;
  // Files of a folder, in name order; `replaceable` says which existing modes a file may replace.
  auto read_folder = [&](const fs::path &folder, const std::function<bool(const SessionMode &)> &replaceable) {
    std::error_code ec;
    if (!fs::is_directory(folder, ec)) return;
    std::vector<fs::path> files;
    for (const auto &entry : fs::directory_iterator(folder, ec))
      if (entry.path().extension() == ".md") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const auto &file : files) {
      const std::string name = file.stem().string();
      try {
        if (!valid_mode_name(name))
          throw ModeError(fmt::format("{}: a mode's name is lower-case letters, digits, '-' and '_' (and not '{}')", file.string(), kNoMode));
        if (auto it = catalog.modes_.find(name); it != catalog.modes_.end() && !replaceable(*it->second))
          throw ModeError(fmt::format("{}: ignored: a project folder cannot redefine mode '{}' ({})",
                                      file.string(), name, it->second->source));
        catalog.modes_[name] = std::make_shared<SessionMode>(
            parse_mode_markdown(read_small_file(file, kMaxModeFileBytes, "a mode file"), file.string(), name));
      } catch (const std::exception &e) {
        catalog.problems_.emplace_back(e.what());
      }
    }
  };
  read_folder(user_dirs::config() / "modes", [](const SessionMode &) { return true; });
  if (const json::value *modes = plan.session_extra.if_contains("modes")) {
    const json::object *map = modes->if_object();
    if (!map) throw ModeError(fmt::format("{}: session.modes must be a map of mode names to modes", plan.file));
    for (const auto &[key, value] : *map) {
      const std::string origin = fmt::format("{}: session.modes.{}", plan.file, std::string_view(key));
      if (!valid_mode_name(key)) throw ModeError(origin + ": a mode's name is lower-case letters, digits, '-' and '_'");
      if (!value.is_object()) throw ModeError(origin + " must be a map");
      catalog.modes_[std::string(key)] =
          std::make_shared<SessionMode>(mode_from(json_fields(value.get_object(), origin), origin, key));
    }
  }
  const fs::path project_modes = project_dir / ".amplifier" / "modes";
  std::error_code ec;
  if (fs::is_directory(project_modes, ec)) {
    if (folder_trust::is_trusted(project_dir))
      read_folder(project_modes, [](const SessionMode &) { return false; });  // never the operator's
    else
      catalog.problems_.push_back(fmt::format("{} ignored: its folder is not trusted (run `amplifier trust {}` to use it)",
                                              project_modes.string(), project_dir.string()));
  }
  return catalog;
}

std::shared_ptr<const SessionMode> ModeCatalog::find(std::string_view name) const {
  if (name == kNoMode) return nullptr;
  if (auto it = modes_.find(name); it != modes_.end()) return it->second;
  std::string known;
  for (const auto &[n, mode] : modes_) known += (known.empty() ? "" : ", ") + n;
  throw ModeError(fmt::format("there is no mode '{}' (modes: {}; '{}' leaves the mode)", name, known, kNoMode));
}

ModeCatalog discover_modes(const MountPlan &plan, const fs::path &project_dir) {
  ModeCatalog catalog = ModeCatalog::discover(plan, project_dir);
  for (const auto &problem : catalog.problems())
    std::fprintf(stderr, "amplifier: warning: %s\n", problem.c_str());
  return catalog;
}

std::string describe_modes(const ModeCatalog &catalog, const std::string &current) {
  std::string out;
  for (const auto &[name, mode] : catalog.modes()) {
    out += fmt::format("{} {:<10} {}{}\n", name == current ? '*' : ' ', name, mode->description,
                       mode->source == kBuiltIn ? "" : fmt::format(" ({})", mode->source));
  }
  return out;
}

}  // namespace amplifier::host

#include "skills.hpp"

#include "front_matter.hpp"

#include "amplifier/coordinator.hpp"
#include "amplifier/folder_trust.hpp"
#include "amplifier/module_support/paths.hpp"
#include "amplifier/module_support/skill_files.hpp"
#include "amplifier/user_dirs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

namespace amplifier::host {
namespace fs = std::filesystem;
namespace json = boost::json;
namespace ms = amplifier::module_support;

namespace {

constexpr std::size_t kMaxSkillFileBytes = 256 * 1024;
constexpr std::size_t kMaxNameChars = 64;
constexpr std::size_t kMaxDescriptionChars = 1024;

bool valid_skill_name(std::string_view name) {
  return !name.empty() && name.size() <= kMaxNameChars && name.front() != '-' && name.back() != '-' &&
         name.find("--") == std::string_view::npos &&
         std::all_of(name.begin(), name.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
         });
}

// Characters (code points) of UTF-8 text: the spec's limits count characters.
std::size_t characters(std::string_view text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

std::string scalar_of(const YAML::Node &node, const std::string &key, const std::string &origin) {
  const YAML::Node value = node[key];
  if (!value) return {};
  if (!value.IsScalar()) throw FrontMatterError(fmt::format("{}: '{}' must be text", origin, key));
  return value.Scalar();
}

// `allowed-tools`: a list, or Claude Code's comma-separated text ("Bash(git status:*), Read").
std::vector<std::string> tools_of(const YAML::Node &node, const std::string &origin) {
  const YAML::Node value = node["allowed-tools"];
  std::vector<std::string> tools;
  if (!value) return tools;
  if (value.IsSequence()) {
    for (const auto &item : value) {
      if (!item.IsScalar()) throw FrontMatterError(fmt::format("{}: 'allowed-tools' must be a list of tool names", origin));
      tools.push_back(item.Scalar());
    }
    return tools;
  }
  if (!value.IsScalar()) throw FrontMatterError(fmt::format("{}: 'allowed-tools' must be a list of tool names", origin));
  std::string current;
  for (char c : value.Scalar() + ",") {
    if (c != ',') {
      current += c;
      continue;
    }
    const auto first = current.find_first_not_of(' ');
    if (first != std::string::npos) tools.push_back(current.substr(first, current.find_last_not_of(' ') - first + 1));
    current.clear();
  }
  return tools;
}

// A relative folder of the plan's session.skills.paths is the plan file's folder's.
fs::path relative_to_plan(const MountPlan &plan, fs::path path) {
  std::error_code ec;
  if (path.is_absolute() || !fs::is_regular_file(plan.file, ec)) return path;
  return fs::path(plan.file).parent_path() / path;
}

}  // namespace

SkillDefinition parse_skill_markdown(std::string_view text, const std::string &origin, const fs::path &folder) {
  try {
    const FrontMatterText file = split_front_matter(text, origin);
    SkillDefinition skill;
    skill.name = scalar_of(file.front, "name", origin);
    skill.description = scalar_of(file.front, "description", origin);
    skill.allowed_tools = tools_of(file.front, origin);
    skill.folder = folder;
    skill.file = folder / "SKILL.md";
    if (!valid_skill_name(skill.name))
      throw FrontMatterError(fmt::format("{}: 'name' must be 1 to {} lower-case letters, digits and '-' (got '{}')",
                                         origin, kMaxNameChars, skill.name));
    if (skill.description.empty())
      throw FrontMatterError(fmt::format("{}: 'description' is required: what the skill does and when to use it", origin));
    if (characters(skill.description) > kMaxDescriptionChars)
      throw FrontMatterError(fmt::format("{}: 'description' is {} characters; at most {}", origin,
                                         characters(skill.description), kMaxDescriptionChars));
    return skill;
  } catch (const FrontMatterError &e) {
    throw std::runtime_error(e.what());
  } catch (const YAML::Exception &e) {
    throw std::runtime_error(fmt::format("{}: {}", origin, e.what()));
  }
}

SkillCatalog SkillCatalog::discover(const MountPlan &plan, const fs::path &project_dir) {
  SkillCatalog catalog;
  bool claude = false;
  std::vector<fs::path> plan_paths;
  if (const json::value *config = plan.session_extra.if_contains("skills")) {
    const json::object *o = config->if_object();
    if (!o) throw std::runtime_error(fmt::format("{}: session.skills must be a map {{paths, claude}}", plan.file));
    for (const auto &[key, value] : *o) {
      if (key == "claude" && value.is_bool()) claude = value.get_bool();
      else if (key == "paths" && value.is_array())
        for (const auto &p : value.get_array()) {
          if (!p.is_string()) throw std::runtime_error(fmt::format("{}: session.skills.paths must be a list of folders", plan.file));
          plan_paths.push_back(relative_to_plan(plan, ms::expand_home(std::string_view(p.get_string()))));
        }
      else
        throw std::runtime_error(fmt::format("{}: session.skills.{}: not known (paths: a list of folders, claude: true/false)",
                                             plan.file, std::string_view(key)));
    }
  }
  // Each folder's skills: its sub-folders with a SKILL.md, in name order, published by their
  // real (canonical) paths, which the skill tool requires. In a project folder, which a model
  // can write to, a symbolic link (a skill folder or SKILL.md pointing elsewhere, at a
  // credentials file, say) is refused; the operator's folders may link to where they keep them.
  auto read_root = [&](const fs::path &root, bool project) {
    std::error_code ec;
    if (!fs::is_directory(root, ec)) return;
    std::vector<fs::path> folders;
    for (const auto &entry : fs::directory_iterator(root, ec))
      if (entry.is_directory(ec) && fs::exists(entry.path() / "SKILL.md", ec)) folders.push_back(entry.path());
    std::sort(folders.begin(), folders.end());
    for (const auto &found : folders) {
      try {
        if (project && (fs::is_symlink(found) || fs::is_symlink(found / "SKILL.md")))
          throw std::runtime_error(fmt::format("{}: a symbolic link in a project folder; skipped", found.string()));
        const fs::path folder = fs::canonical(found);
        const fs::path file = folder / "SKILL.md";
        SkillDefinition skill = parse_skill_markdown(read_small_file(file, kMaxSkillFileBytes, "a SKILL.md"),
                                                     file.string(), folder);
        if (skill.name != found.filename().string())
          throw std::runtime_error(fmt::format("{}: its name '{}' is not its folder's ('{}'); skipped",
                                               file.string(), skill.name, found.filename().string()));
        if (const SkillDefinition *earlier = catalog.find(skill.name)) {
          catalog.problems_.push_back(fmt::format("{}: a skill named '{}' was found first at {}; this one is not used",
                                                  file.string(), skill.name, earlier->file.string()));
          continue;
        }
        catalog.skills_.push_back(std::move(skill));
      } catch (const std::exception &e) {
        catalog.problems_.emplace_back(e.what());
      }
    }
  };
  std::vector<fs::path> project_roots{project_dir / ".amplifier" / "skills"};
  if (claude) project_roots.push_back(project_dir / ".claude" / "skills");
  const bool trusted = folder_trust::is_trusted(project_dir);
  for (const auto &root : project_roots) {
    std::error_code ec;
    if (!fs::is_directory(root, ec)) continue;
    if (trusted) read_root(root, /*project=*/true);
    else
      catalog.problems_.push_back(fmt::format("{} ignored: its folder is not trusted (run `amplifier trust {}` to use it)",
                                              root.string(), project_dir.string()));
  }
  read_root(user_dirs::config() / "skills", false);
  if (claude) read_root(user_dirs::home() / ".claude" / "skills", false);
  for (const auto &root : plan_paths) read_root(root, false);
  return catalog;
}

const SkillDefinition *SkillCatalog::find(std::string_view name) const {
  for (const auto &skill : skills_)
    if (skill.name == name) return &skill;
  return nullptr;
}

void publish_skills(Session &session, const fs::path &project_dir) {
  SkillCatalog catalog;
  try {
    catalog = SkillCatalog::discover(session.plan(), project_dir);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "amplifier: warning: no skills: %s\n", e.what());
    return;
  }
  if (session.options().depth == 0)  // said once, not again for each delegated child
    for (const auto &problem : catalog.problems())
      std::fprintf(stderr, "amplifier: warning: %s\n", problem.c_str());
  json::array skills;
  for (const auto &skill : catalog.skills()) {
    json::array tools;
    for (const auto &tool : skill.allowed_tools) tools.emplace_back(tool);
    skills.push_back(json::object{{"name", skill.name},
                                  {"description", skill.description},
                                  {"file", skill.file.string()},
                                  {"allowed_tools", std::move(tools)}});
  }
  session.coordinator().register_capability("session.skills", std::move(skills));
}

std::string load_skill(const SkillDefinition &skill) {
  std::string text;
  try {
    text = read_small_file(skill.file, kMaxSkillFileBytes, "a SKILL.md");
  } catch (const FrontMatterError &e) {
    throw std::runtime_error(e.what());
  }
  return ms::loaded_skill_text(skill.name, skill.folder, ms::skill_instructions(text),
                               ms::skill_resources(skill.folder));
}

}  // namespace amplifier::host

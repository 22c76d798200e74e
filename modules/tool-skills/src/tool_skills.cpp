// tool-skills: the `skill` tool. Progressive disclosure, as Agent Skills intend: the tool's
// description lists each skill's name and description (all the model sees of them until it
// asks); calling it with a name loads that skill's instructions and the list of its files, which
// the model then reads with the file tools when the instructions call for them.
//
// Trust: the skills are the ones the host found and published (capability "session.skills": the
// operator's folders and plan, a trusted project's; host/runtime/skills.hpp). The model only
// chooses a name from that list: no path it writes is ever read here. Reading a skill reads its
// SKILL.md and lists its folder, which may be outside the session's folder (the operator's
// ~/.config/amplifier/skills); a skill's `allowed-tools` is shown and grants nothing.
#include "amplifier/module_support/config_reader.hpp"
#include "amplifier/module_support/json_util.hpp"
#include "amplifier/module_support/skill_files.hpp"
#include "amplifier/module_support/tool_result.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace tool_skills {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
namespace ms = amplifier::module_support;

constexpr std::string_view kCapability = "session.skills";
constexpr std::size_t kMaxSkillFileBytes = 256 * 1024;

struct Skill {
  std::string name;
  std::string description;
  fs::path file;
  std::vector<std::string> allowed_tools;
};

std::vector<Skill> published_skills(const amp::sdk::Host &host) {
  std::vector<Skill> skills;
  const auto published = host.capability(kCapability);
  if (!published) return skills;
  json::error_code ec;
  const json::value list = json::parse(*published, ec);
  if (ec || !list.is_array()) return skills;
  for (const auto &entry : list.get_array()) {
    const json::object *o = entry.if_object();
    if (!o) continue;
    Skill skill{std::string(ms::string_at(*o, "name")), std::string(ms::string_at(*o, "description")),
                fs::path(std::string(ms::string_at(*o, "file"))), {}};
    if (const json::array *tools = ms::array_at(*o, "allowed_tools"))
      for (const auto &tool : *tools)
        if (tool.is_string()) skill.allowed_tools.emplace_back(tool.get_string());
    if (!skill.name.empty() && !skill.file.empty()) skills.push_back(std::move(skill));
  }
  return skills;
}

// Reads a SKILL.md the host published. Only what the host found is read: an absolute path by
// its real name (no symbolic link anywhere on it: the host publishes canonical paths), whose
// last part is SKILL.md, opened without following a link put there since (O_NOFOLLOW) and
// read up to the limit. A path any other module registered, or a file a model swapped for a
// link to a credentials file after the session started, is refused.
std::string read_skill_file(const fs::path &file) {
  std::error_code ec;
  if (!file.is_absolute() || file.filename() != "SKILL.md" || fs::weakly_canonical(file, ec) != file || ec)
    throw std::runtime_error(file.string() + " is not a skill file the host found (by its real path)");
  const int fd = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error(file.string() + " cannot be read: " + std::strerror(errno));
  std::string text;
  char buffer[16 * 1024];
  ssize_t n = 0;
  while ((n = ::read(fd, buffer, sizeof buffer)) > 0 && text.size() <= kMaxSkillFileBytes)
    text.append(buffer, static_cast<std::size_t>(n));
  const int error = errno;
  ::close(fd);
  if (n < 0) throw std::runtime_error(file.string() + " cannot be read: " + std::strerror(error));
  if (text.size() > kMaxSkillFileBytes)
    throw std::runtime_error(file.string() + " is larger than a SKILL.md may be (" + std::to_string(kMaxSkillFileBytes) +
                             " bytes)");
  return text;
}

class SkillTool final : public amp::sdk::ToolModule {
 public:
  SkillTool(amp::sdk::Host host, std::string_view config_json) : ToolModule(host) {
    ms::ConfigReader reader(config_json, "tool-skills config");
    reader.warn_unknown_keys(host);
  }

  // The tool is offered with no skills too (the plan mounted it): its description says so.
  std::string list_tools() override {
    const std::vector<Skill> skills = published_skills(host());
    std::string description =
        "Load a skill: instructions for a kind of task, with files to read when they call for "
        "them. When the user's request matches a skill's description, load it before you start. ";
    json::array names;
    description += skills.empty() ? "No skills are installed for this session." : "Skills:";
    for (const auto &skill : skills) {
      description += "\n- " + skill.name + ": " + skill.description;
      names.emplace_back(skill.name);
    }
    json::object name{{"type", "string"}, {"description", "the skill to load"}};
    if (!names.empty()) name["enum"] = std::move(names);
    const json::object spec{
        {"name", "skill"},
        {"description", description},
        {"input_schema",
         {{"type", "object"},
          {"properties", {{"name", std::move(name)}}},
          {"required", json::array{"name"}},
          {"additionalProperties", false}}}};
    return json::serialize(json::array{spec});
  }

  void execute(amp_call_id call, std::string_view tool, std::string_view input_json) override {
    if (tool != "skill")
      return host().call_fail(call, "not_found", "tool-skills has no tool '" + std::string(tool) + "'", AMP_NOT_FOUND);
    try {
      const json::object input = ms::parse_json_object(input_json, "skill input");
      const std::string name(ms::string_at(input, "name"));
      for (const auto &skill : published_skills(host())) {
        if (skill.name != name) continue;
        const fs::path folder = skill.file.parent_path();
        std::string text = ms::loaded_skill_text(skill.name, folder, ms::skill_instructions(read_skill_file(skill.file)),
                                                 ms::skill_resources(folder));
        if (!skill.allowed_tools.empty()) {
          text += "\n(The skill names the tools it expects:";
          for (const auto &t : skill.allowed_tools) text += " " + t;
          text += ". The session's own approvals still apply.)";
        }
        return host().call_finish(call, AMP_OK, ms::tool_result(true, text, json::object{{"skill", skill.name}}));
      }
      return host().call_finish(call, AMP_OK, ms::tool_result(false, "there is no skill '" + name + "'"));
    } catch (const std::exception &e) {
      host().call_finish(call, AMP_OK, ms::tool_result(false, e.what()));
    }
  }
};

}  // namespace
}  // namespace tool_skills

AMP_DEFINE_MODULE(tool_skills::SkillTool, "tool-skills", "0.1.0",
                  "The skill tool: loads an Agent Skill's instructions on demand");

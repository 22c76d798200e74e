// Agent Skills (the format Anthropic defines and Claude Code reads): a folder holding SKILL.md,
// whose YAML front matter says `name` (lower-case letters, digits and '-', at most 64) and
// `description` (at most 1024 characters; what it does and when to use it), optionally
// `allowed-tools`, and whose body is the instructions, beside resources (scripts, references)
// the model reads when the instructions call for them.
//
// Where skills are found (the first of a name wins, in this order):
//   - the project's .amplifier/skills/NAME/ and, with `session.skills.claude: true`, its
//     .claude/skills/NAME/: only in a folder the operator trusts (`amplifier trust`), since a
//     cloned repository is not the operator;
//   - the operator's $XDG_CONFIG_HOME/amplifier/skills/NAME/ and, with `claude: true`,
//     ~/.claude/skills/NAME/;
//   - the folders the plan lists, `session: {skills: {paths: [DIR, ...]}}`: the operator's plan
//     only (a serve client's plan or an agent file cannot set session.skills: kOperatorSessionKeys).
// Progressive disclosure: the session publishes only names and descriptions (capability
// "session.skills", which tool-skills lists in its `skill` tool's description); the model
// loads a skill's instructions with that tool, or the user with chat's /skill NAME.
// `allowed-tools` is read and shown, and grants nothing: the session's approvals and mode hold.
#pragma once
#include "amplifier/mount_plan.hpp"
#include "amplifier/session.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace amplifier::host {

struct SkillDefinition {
  std::string name;
  std::string description;
  std::vector<std::string> allowed_tools;  // as the file says; grants nothing here
  std::filesystem::path folder;
  std::filesystem::path file;  // folder / "SKILL.md"
};

class SkillCatalog {
 public:
  // A skill that cannot be read is a problem reported in problems(), not a failure.
  static SkillCatalog discover(const MountPlan &plan, const std::filesystem::path &project_dir);

  const std::vector<SkillDefinition> &skills() const { return skills_; }
  const SkillDefinition *find(std::string_view name) const;
  const std::vector<std::string> &problems() const { return problems_; }

 private:
  std::vector<SkillDefinition> skills_;
  std::vector<std::string> problems_;
};

// Parses SKILL.md's text. Throws std::runtime_error naming `origin` and the problem.
SkillDefinition parse_skill_markdown(std::string_view text, const std::string &origin,
                                     const std::filesystem::path &folder);

// Publishes the catalog's names, descriptions and files as capability "session.skills"
// ([{name, description, file, allowed_tools}]) for tool-skills.
void publish_skills(Session &session, const std::filesystem::path &project_dir);

// What loading `skill` shows the model (its instructions, folder and files). Throws
// std::runtime_error when SKILL.md cannot be read.
std::string load_skill(const SkillDefinition &skill);

}  // namespace amplifier::host

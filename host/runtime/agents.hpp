// Agents: named sub-session profiles for `delegate` (tool-delegate) and `amplifier agents`.
//
// An agent is a Markdown file whose YAML front matter says
//   name, description            (name defaults to the file name without .md)
//   session, providers, tools, hooks   an overlay merged over the parent's plan, as `includes:`
//                                      merges (modules by mount name, mappings deep-merged)
//   inherit: {tools: all|none|[ids], hooks: all|none|[ids]}   what of the parent's it keeps
//   exclude: {tools: [ids], hooks: [ids]}                       what of the parent's it drops
// and whose body is its instructions (the child's system prompt). A plan's `agents:` section
// names more: `NAME: path/to/agent.md`, or inline `NAME: {description, instructions, ...}`.
#pragma once
#include "amplifier/mount_plan.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace amplifier::host {

// Which of the parent's tools (or hooks) a child keeps.
struct InheritRule {
  enum class Mode { all, none, listed };
  Mode mode = Mode::all;
  std::vector<std::string> names;  // Mode::listed: module ids or mount names
};

struct AgentDefinition {
  std::string name;
  std::string description;
  std::string instructions;
  std::string origin;  // the file it came from, or "plan FILE"
  MountPlan overlay;   // a partial plan
  // Whether the operator wrote it (their plan's `agents:`, their config folder) rather than a
  // project folder, which a cloned repository or the model itself (write_file) can fill. An
  // agent that is not trusted may not add modules its parent does not mount, nor name sources.
  bool trusted = true;
  InheritRule inherit_tools;
  InheritRule inherit_hooks;
  std::vector<std::string> exclude_tools;
  std::vector<std::string> exclude_hooks;
};

class AgentError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses an agent file's text. Throws AgentError naming `origin` and the problem.
AgentDefinition parse_agent_markdown(std::string_view text, const std::string &origin,
                                     std::string_view default_name);
AgentDefinition read_agent_file(const std::filesystem::path &file);

// The agents one session can see, in lookup order: `.amplifier/agents/` of the working
// directory, then $XDG_CONFIG_HOME/amplifier/agents/, then the plan's `agents:` section. A
// name found earlier shadows the same name later. A file that cannot be read is a problem
// reported, not a failure: the other agents stay usable.
class AgentCatalog {
 public:
  static AgentCatalog discover(const MountPlan &plan, const std::filesystem::path &cwd);
  const AgentDefinition *find(std::string_view name) const;
  const std::vector<AgentDefinition> &agents() const { return agents_; }
  const std::vector<std::string> &problems() const { return problems_; }

 private:
  void add(AgentDefinition agent);
  void add_folder(const std::filesystem::path &folder, bool trusted);
  void add_plan_section(const MountPlan &plan);
  std::vector<AgentDefinition> agents_;
  std::vector<std::string> problems_;
};

// The child plan for `agent` (nullptr: "self", the parent's own plan): the parent's plan minus
// what `exclude_tools`/`exclude_hooks` and the agent leave out, with the agent's overlay merged.
// An agent narrows what its child may do, never widens it (README "Security"):
//  - a module the parent's plan marks `required: true` stays, exactly as the parent mounts it
//    (an approval hook cannot be excluded or reconfigured away, a required provider's endpoint
//    not changed), whoever wrote the agent;
//  - an agent that is not trusted (a project folder's) adds no module the parent does not
//    mount, names no source, changes no isolation, sets no config key that grants
//    (plan_trust.hpp), and the tools and hooks its child keeps keep the parent's confinement
//    (working_dir, sandbox, allowed_*/denied_*). AgentError names each refused key.
MountPlan child_plan(const MountPlan &parent, const AgentDefinition *agent,
                     const std::vector<std::string> &exclude_tools,
                     const std::vector<std::string> &exclude_hooks);

// The parent's `required: true` modules put back into `child` exactly as the parent mounts
// them; with `inherit_confinement`, also the parent's working_dir, sandbox and
// allowed_*/denied_* keys on the tools and hooks both mount. Also used for a serve client's
// plan, with the operator's default plan as the parent. The operator's keys of `session:`
// (kOperatorSessionKeys) are the parent's, whatever the child's plan says.
void narrow_to_parent(MountPlan &child, const MountPlan &parent, bool inherit_confinement);

// The `session:` keys only the operator sets: what a session may spend and at what prices
// (budget, pricing, and operator_pricing, which the host fills from the operator's settings),
// and skills (folders whose files are read, see skills.hpp).
inline constexpr const char *kOperatorSessionKeys[] = {"budget", "pricing", "operator_pricing", "skills"};

}  // namespace amplifier::host

#include "agents.hpp"

#include "front_matter.hpp"

#include "plan_trust.hpp"

#include "amplifier/folder_trust.hpp"

#include "amplifier/user_dirs.hpp"
#include "amplifier/yaml_cpp.hpp"

#include <boost/json/serialize.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <span>
#include <fstream>
#include <sstream>

namespace amplifier::host {
namespace fs = std::filesystem;

namespace {

// The front matter keys that are the agent's own; the rest is its plan overlay.
constexpr std::string_view kOverlayKeys[] = {"session", "providers", "tools", "hooks"};
// An agent file larger than this is a mistake (or not an agent).
constexpr std::uintmax_t kMaxAgentFileBytes = 1 << 20;

bool is_one_of(std::string_view key, std::span<const std::string_view> keys) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

bool valid_name(std::string_view name) {
  if (name.empty() || name.size() > 64 || name == "self") return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

std::string scalar(const YAML::Node &node, std::string_view key, const std::string &origin) {
  if (!node.IsScalar()) throw AgentError(fmt::format("{}: '{}' must be a string", origin, key));
  return node.Scalar();
}

std::vector<std::string> name_list(const YAML::Node &node, std::string_view key,
                                   const std::string &origin) {
  if (!node.IsSequence())
    throw AgentError(fmt::format("{}: '{}' must be a list of module ids", origin, key));
  std::vector<std::string> names;
  for (const auto &item : node) names.push_back(scalar(item, key, origin));
  return names;
}

InheritRule inherit_rule(const YAML::Node &node, std::string_view key, const std::string &origin) {
  InheritRule rule;
  if (node.IsScalar() && (node.Scalar() == "all" || node.Scalar() == "none")) {
    rule.mode = node.Scalar() == "all" ? InheritRule::Mode::all : InheritRule::Mode::none;
    return rule;
  }
  if (!node.IsSequence())
    throw AgentError(
        fmt::format("{}: '{}' must be all, none or a list of module ids", origin, key));
  rule.mode = InheritRule::Mode::listed;
  rule.names = name_list(node, key, origin);
  return rule;
}

// `inherit:` and `exclude:` are maps of tools/hooks.
template <class Fn>
void for_tools_and_hooks(const YAML::Node &node, std::string_view key, const std::string &origin,
                         Fn &&fn) {
  if (!node.IsMap())
    throw AgentError(fmt::format("{}: '{}' must be a map with tools and/or hooks", origin, key));
  for (const auto &entry : node) {
    const std::string kind = entry.first.Scalar();
    if (kind != "tools" && kind != "hooks")
      throw AgentError(fmt::format("{}: '{}.{}' is not known (tools or hooks)", origin, key, kind));
    fn(kind, entry.second, fmt::format("{}.{}", key, kind));
  }
}

AgentDefinition agent_from_node(const YAML::Node &root, std::string instructions,
                                const std::string &origin, std::string_view default_name) {
  if (!root.IsMap() && !root.IsNull())
    throw AgentError(fmt::format("{}: the front matter must be a YAML map", origin));
  AgentDefinition agent;
  agent.origin = origin;
  agent.name = std::string(default_name);
  agent.instructions = std::move(instructions);
  YAML::Node overlay(YAML::NodeType::Map);
  for (const auto &entry : root) {
    const std::string key = entry.first.Scalar();
    const YAML::Node &value = entry.second;
    if (key == "name")
      agent.name = scalar(value, key, origin);
    else if (key == "description")
      agent.description = scalar(value, key, origin);
    else if (key == "instructions")
      agent.instructions = scalar(value, key, origin);
    else if (key == "inherit")
      for_tools_and_hooks(
          value, key, origin,
          [&](const std::string &kind, const YAML::Node &v, const std::string &path) {
            (kind == "tools" ? agent.inherit_tools : agent.inherit_hooks) =
                inherit_rule(v, path, origin);
          });
    else if (key == "exclude")
      for_tools_and_hooks(
          value, key, origin,
          [&](const std::string &kind, const YAML::Node &v, const std::string &path) {
            (kind == "tools" ? agent.exclude_tools : agent.exclude_hooks) =
                name_list(v, path, origin);
          });
    else if (is_one_of(key, kOverlayKeys))
      overlay[key] = value;
    else
      throw AgentError(
          fmt::format("{}: '{}' is not an agent key (known: name, description, "
                      "instructions, inherit, exclude, session, providers, tools, "
                      "hooks)",
                      origin, key));
  }
  if (!valid_name(agent.name))
    throw AgentError(
        fmt::format("{}: the agent name '{}' is not usable (letters, digits, '-', "
                    "'_' and '.', at most 64, and not 'self')",
                    origin, agent.name));
  try {
    agent.overlay = parse_plan_fragment(YAML::Dump(overlay), origin);
  } catch (const MountPlanError &e) {
    throw AgentError(fmt::format("{}: its plan overlay is not valid: {}", origin, e.what()));
  }
  return agent;
}

std::string read_agent_text(const fs::path &file) {
  try {
    return read_small_file(file, kMaxAgentFileBytes, "an agent file");
  } catch (const FrontMatterError &e) {
    throw AgentError(e.what());
  }
}

bool drop(const ModuleSpec &spec, const std::vector<std::string> &names) {
  return std::find(names.begin(), names.end(), spec.module) != names.end() ||
         std::find(names.begin(), names.end(), spec.mount_name()) != names.end();
}

void apply_inherit(std::vector<ModuleSpec> &list, const InheritRule &rule,
                   const std::vector<std::string> &exclude) {
  std::erase_if(list, [&](const ModuleSpec &spec) {
    if (drop(spec, exclude)) return true;
    if (rule.mode == InheritRule::Mode::none) return true;
    return rule.mode == InheritRule::Mode::listed && !drop(spec, rule.names);
  });
}

const ModuleSpec *find_mounted(std::span<const ModuleSpec> list, const std::string &name) {
  for (const auto &spec : list)
    if (spec.mount_name() == name) return &spec;
  return nullptr;
}

// The keys that confine a tool or hook to a folder or a sandbox.
bool confinement_key(std::string_view key) {
  return key == "working_dir" || key == "sandbox" || key.starts_with("allowed_") ||
         key.starts_with("denied_");
}

// The child's confinement keys become the parent's: the same values, and none the parent
// leaves at its default.
void inherit_confinement(ModuleSpec &child, const ModuleSpec &parent) {
  for (auto it = child.config.begin(); it != child.config.end();)
    it = confinement_key(it->key()) ? child.config.erase(it) : std::next(it);
  for (const auto &[key, value] : parent.config)
    if (confinement_key(key)) child.config[key] = value;
}

void keep_parent_limits(std::vector<ModuleSpec> &child, const std::vector<ModuleSpec> &parent,
                        bool confine) {
  for (const auto &spec : parent) {
    auto it = std::find_if(child.begin(), child.end(), [&](const ModuleSpec &c) {
      return c.mount_name() == spec.mount_name();
    });
    if (spec.required) {
      if (it == child.end()) child.push_back(spec);
      else *it = spec;
    } else if (confine && it != child.end()) {
      inherit_confinement(*it, spec);
    }
  }
}

// A project folder's agent (written by whoever wrote the folder, the model included) may
// choose among the parent's modules and tune them, not bring code, tools, programs, paths,
// endpoints or secrets of its own (plan_trust.hpp).
void check_untrusted_overlay(const MountPlan &parent, const AgentDefinition &agent) {
  const MountPlan &overlay = agent.overlay;
  std::vector<std::string> refusals;
  for_each_module(overlay, [&](const ModuleSpec &spec, const std::string &path,
                               PlanSection section) {
    const auto mounted = section_modules(parent, section);
    if (!spec.source.empty())
      refusals.push_back(fmt::format("{}.source: may not name module sources", path));
    if (!find_mounted(mounted, spec.mount_name()))
      refusals.push_back(fmt::format("{}: may not add {}, which its parent does not mount", path,
                                     spec.mount_name()));
    option_refusals(spec, path, refusals);
    config_refusals(spec, path, refusals);
  });
  if (overlay.isolation_set) refusals.push_back("session.isolation: only the operator sets it");
  if (!refusals.empty())
    throw AgentError(fmt::format("{}: an agent from a project folder {}", agent.origin,
                                 fmt::join(refusals, "; ")));
}

}  // namespace

AgentDefinition parse_agent_markdown(std::string_view text, const std::string &origin,
                                     std::string_view default_name) {
  try {
    FrontMatterText file = split_front_matter(text, origin);
    return agent_from_node(file.front, std::move(file.body), origin, default_name);
  } catch (const FrontMatterError &e) {
    throw AgentError(e.what());
  }
}

AgentDefinition read_agent_file(const fs::path &file) {
  return parse_agent_markdown(read_agent_text(file), file.string(), file.stem().string());
}

AgentCatalog AgentCatalog::discover(const MountPlan &plan, const fs::path &cwd) {
  AgentCatalog catalog;
  // A project folder's agents count once the operator trusts the folder (a cloned repository
  // does not get to define them), and even then stay untrusted: the model can write there.
  const fs::path project_agents = cwd / ".amplifier" / "agents";
  std::error_code ec;
  if (folder_trust::is_trusted(cwd))
    catalog.add_folder(project_agents, /*trusted=*/false);
  else if (fs::is_directory(project_agents, ec))
    catalog.problems_.push_back(fmt::format(
        "{}: ignored, the folder is not trusted (run `amplifier trust {}` to use its agents)",
        project_agents.string(), cwd.string()));
  try {
    catalog.add_folder(user_dirs::config() / "agents", /*trusted=*/true);
  } catch (const std::exception &) {  // no home directory: no user agents
  }
  catalog.add_plan_section(plan);
  return catalog;
}

const AgentDefinition *AgentCatalog::find(std::string_view name) const {
  for (const auto &agent : agents_)
    if (agent.name == name) return &agent;
  return nullptr;
}

void AgentCatalog::add(AgentDefinition agent) {
  if (find(agent.name)) return;  // an earlier place has it: that one counts
  agents_.push_back(std::move(agent));
}

void AgentCatalog::add_folder(const fs::path &folder, bool trusted) {
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) return;
  std::vector<fs::path> files;
  for (const auto &entry : fs::directory_iterator(folder, ec))
    if (entry.path().extension() == ".md" && entry.is_regular_file(ec))
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());  // a stable order whatever the file system says
  for (const auto &file : files) {
    try {
      AgentDefinition agent = read_agent_file(file);
      agent.trusted = trusted;
      add(std::move(agent));
    } catch (const AgentError &e) {
      problems_.push_back(e.what());
    }
  }
}

void AgentCatalog::add_plan_section(const MountPlan &plan) {
  for (const auto &[key, value] : plan.agents) {
    const std::string name(key);
    const std::string origin = fmt::format("plan {} (agents.{})", plan.file, name);
    try {
      if (value.is_string()) {
        AgentDefinition agent = read_agent_file(std::string(value.as_string()));
        agent.name = name;  // the plan's name for it counts
        add(std::move(agent));
      } else if (value.is_object()) {
        // JSON is YAML: the inline entry is read exactly as front matter is.
        add(agent_from_node(YAML::Load(boost::json::serialize(value)), "", origin, name));
      } else {
        throw AgentError(fmt::format("{}: expected a path to an agent file or a map", origin));
      }
    } catch (const AgentError &e) {
      problems_.push_back(e.what());
    } catch (const YAML::Exception &e) {
      problems_.push_back(fmt::format("{}: {}", origin, e.what()));
    }
  }
}

MountPlan child_plan(const MountPlan &parent, const AgentDefinition *agent,
                     const std::vector<std::string> &exclude_tools,
                     const std::vector<std::string> &exclude_hooks) {
  MountPlan plan = parent;
  const InheritRule all;
  apply_inherit(plan.tools, agent ? agent->inherit_tools : all, exclude_tools);
  apply_inherit(plan.hooks, agent ? agent->inherit_hooks : all, exclude_hooks);
  if (agent) {
    if (!agent->trusted) check_untrusted_overlay(parent, *agent);
    apply_inherit(plan.tools, all, agent->exclude_tools);
    apply_inherit(plan.hooks, all, agent->exclude_hooks);
    merge_mount_plan(plan, agent->overlay);
    plan.file = parent.file;  // the overlay's label would hide where the plan came from
  }
  // The operator's own agents may set their child's folder and sandbox as they see fit.
  narrow_to_parent(plan, parent, /*inherit_confinement=*/agent && !agent->trusted);
  return plan;
}

void narrow_to_parent(MountPlan &child, const MountPlan &parent, bool inherit_confinement) {
  keep_parent_limits(child.providers, parent.providers, false);
  keep_parent_limits(child.tools, parent.tools, inherit_confinement);
  keep_parent_limits(child.hooks, parent.hooks, inherit_confinement);
  // Money and skills are the parent's: an agent file or a client's plan neither loosens the
  // budget nor reprices a model (an agent that wants less sets its loop's own `budget`, and
  // the stricter limit holds), nor names folders to read skills from.
  for (const char *key : kOperatorSessionKeys) {
    child.session_extra.erase(key);
    if (const auto *value = parent.session_extra.if_contains(key)) child.session_extra[key] = *value;
  }
}

}  // namespace amplifier::host

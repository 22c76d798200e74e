// `amplifier agents list | show NAME`: the agents `delegate` can run (agents.hpp).
#include "agents.hpp"
#include "commands.hpp"

#include "amplifier/mount_plan.hpp"
#include "amplifier/terminal_text.hpp"

#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <memory>

namespace amplifier::host {
namespace {

struct AgentsOptions {
  std::string plan_file;
  std::string format = "text";
  std::string name;
};

std::string inherit_text(const InheritRule &rule) {
  if (rule.mode == InheritRule::Mode::all) return "all";
  if (rule.mode == InheritRule::Mode::none) return "none";
  return fmt::format("{}", fmt::join(rule.names, ", "));
}

boost::json::value inherit_json(const InheritRule &rule) {
  if (rule.mode != InheritRule::Mode::listed) return boost::json::value(inherit_text(rule));
  boost::json::array names;
  for (const auto &n : rule.names) names.emplace_back(n);
  return names;
}

boost::json::array names_json(const std::vector<std::string> &names) {
  boost::json::array out;
  for (const auto &n : names) out.emplace_back(n);
  return out;
}

boost::json::object agent_json(const AgentDefinition &agent) {
  return {
      {"name", agent.name},
      {"description", agent.description},
      {"origin", agent.origin},
      {"inherit",
       {{"tools", inherit_json(agent.inherit_tools)},
        {"hooks", inherit_json(agent.inherit_hooks)}}},
      {"exclude",
       {{"tools", names_json(agent.exclude_tools)}, {"hooks", names_json(agent.exclude_hooks)}}},
      {"instructions", agent.instructions}};
}

AgentCatalog load_catalog(const AgentsOptions &options, MountPlan &plan) {
  plan = resolve_plan(options.plan_file, /*with_display=*/false);
  AgentCatalog catalog = AgentCatalog::discover(plan, std::filesystem::current_path());
  for (const auto &problem : catalog.problems())
    fmt::print(stderr, "amplifier: warning: {}\n", terminal_safe(problem));
  return catalog;
}

int list_agents(const AgentsOptions &options) {
  MountPlan plan;
  const AgentCatalog catalog = load_catalog(options, plan);
  if (options.format == "json") {
    boost::json::array out;
    for (const auto &agent : catalog.agents()) out.push_back(agent_json(agent));
    fmt::print("{}\n", boost::json::serialize(out));
    return 0;
  }
  if (catalog.agents().empty()) {
    fmt::print(
        "no agents (put NAME.md files in .amplifier/agents/, or name them under the "
        "plan's agents: section)\n");
    return 0;
  }
  for (const auto &agent : catalog.agents())
    fmt::print("{:<20} {}\n{:<20} ({})\n", terminal_safe(agent.name),
               terminal_safe(agent.description), "", terminal_safe(agent.origin));
  return 0;
}

int show_agent(const AgentsOptions &options) {
  MountPlan plan;
  const AgentCatalog catalog = load_catalog(options, plan);
  const AgentDefinition *agent = catalog.find(options.name);
  if (!agent) {
    fmt::print(stderr, "amplifier: error: no agent named '{}' (see: amplifier agents list)\n",
               terminal_safe(options.name));
    return 1;
  }
  const MountPlan child = child_plan(plan, agent, {}, {});
  if (options.format == "json") {
    boost::json::object out = agent_json(*agent);
    out["plan"] = mount_plan_yaml(child);
    fmt::print("{}\n", boost::json::serialize(out));
    return 0;
  }
  fmt::print("name:         {}\ndescription:  {}\norigin:       {}\n", terminal_safe(agent->name),
             terminal_safe(agent->description), terminal_safe(agent->origin));
  fmt::print("inherits:     tools: {}; hooks: {}\n", inherit_text(agent->inherit_tools),
             inherit_text(agent->inherit_hooks));
  if (!agent->exclude_tools.empty())
    fmt::print("excludes:     tools: {}\n", fmt::join(agent->exclude_tools, ", "));
  if (!agent->exclude_hooks.empty())
    fmt::print("excludes:     hooks: {}\n", fmt::join(agent->exclude_hooks, ", "));
  fmt::print("\n# instructions\n{}\n\n# the plan a child running it mounts\n{}",
             terminal_safe(agent->instructions), mount_plan_yaml(child));
  return 0;
}

template <class Fn>
int reporting(Fn &&fn) {
  try {
    return fn();
  } catch (const MountPlanError &e) {
    for (const auto &p : e.problems()) fmt::print(stderr, "{}\n", p.to_string());
    return 1;
  } catch (const std::exception &e) {
    fmt::print(stderr, "amplifier: error: {}\n", e.what());
    return 1;
  }
}

}  // namespace

void add_agents_command(CLI::App &app, int &exit_code) {
  auto options = std::make_shared<AgentsOptions>();
  CLI::App *agents = app.add_subcommand(
      "agents",
      "The agents delegate can run: .amplifier/agents/, the user's agents folder, the "
      "plan's agents: section");
  agents->require_subcommand(1);
  auto add_common = [&](CLI::App *cmd) {
    cmd->add_option("--plan", options->plan_file, "Mount plan (YAML); default: the built-in plan")
        ->check(CLI::ExistingFile);
    cmd->add_option("--format", options->format, "text or json")
        ->check(CLI::IsMember({"text", "json"}));
  };
  CLI::App *list = agents->add_subcommand("list", "List the agents, in lookup order");
  add_common(list);
  list->callback(
      [options, &exit_code] { exit_code = reporting([&] { return list_agents(*options); }); });
  CLI::App *show = agents->add_subcommand(
      "show", "Show an agent: its instructions and the plan a child running it mounts");
  add_common(show);
  show->add_option("name", options->name, "The agent's name")->required();
  show->callback(
      [options, &exit_code] { exit_code = reporting([&] { return show_agent(*options); }); });
}

}  // namespace amplifier::host

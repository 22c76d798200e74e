#include "child_policy.hpp"

#include "skills.hpp"

#include "agents.hpp"

#include "amplifier/coordinator.hpp"
#include "amplifier/session.hpp"

#include <boost/json/array.hpp>
#include <fmt/format.h>

namespace amplifier::host {

namespace {
// Registered by context modules that keep transcripts (context-persistent, context-postgres).
constexpr std::string_view kTranscriptCapability = "session.transcript";

std::string known_agents(const AgentCatalog &catalog) {
  std::string names;
  for (const auto &agent : catalog.agents()) names += (names.empty() ? "" : ", ") + agent.name;
  return names.empty() ? "none are defined" : "known: self, " + names;
}
}  // namespace

HostChildPolicy::HostChildPolicy(std::function<void(Session &)> attach, std::filesystem::path cwd)
    : attach_(std::move(attach)), cwd_(std::move(cwd)) {}

ChildSetup HostChildPolicy::setup(const MountPlan &parent_plan, const SpawnRequest &request) {
  ChildSetup setup;
  setup.agent = request.agent;
  if (request.agent == "self") {
    setup.plan = child_plan(parent_plan, nullptr, request.exclude_tools, request.exclude_hooks);
    return setup;
  }
  // Looked up at each spawn: an agent file edited during a session counts from the next one.
  const AgentCatalog catalog = AgentCatalog::discover(parent_plan, cwd_);
  const AgentDefinition *agent = catalog.find(request.agent);
  if (!agent) {
    std::string message =
        fmt::format("no agent named '{}' ({})", request.agent, known_agents(catalog));
    for (const auto &problem : catalog.problems()) message += "; " + problem;
    throw std::runtime_error(message);
  }
  setup.plan = child_plan(parent_plan, agent, request.exclude_tools, request.exclude_hooks);
  setup.instructions = agent->instructions;
  return setup;
}

void HostChildPolicy::prepare(Session &child) {
  publish_agents(child, cwd_);
  publish_skills(child, cwd_);
  if (attach_) attach_(child);
}

void publish_agents(Session &session, const std::filesystem::path &cwd) {
  const AgentCatalog catalog = AgentCatalog::discover(session.plan(), cwd);
  boost::json::array agents;
  for (const auto &agent : catalog.agents())
    agents.push_back(boost::json::object{{"name", agent.name}, {"description", agent.description}});
  session.coordinator().register_capability("session.agents", std::move(agents));
}

void HostChildPolicy::check_resumed(Session &child) { check_resumed_session(child); }

std::optional<boost::json::object> transcript_info(Session &session) {
  auto info = session.coordinator().capability(kTranscriptCapability);
  if (!info || !info->is_object()) return std::nullopt;
  return info->as_object();
}

void check_resumed_session(Session &session) {
  auto info = transcript_info(session);
  if (!info)
    throw std::runtime_error(fmt::format(
        "the plan's context module '{}' does not keep transcripts, so it cannot resume a session "
        "(use context-persistent, e.g. --plan mount-plans/persistent.yaml, or context-postgres)",
        session.plan().context.module));
  const auto *resumed = info->if_contains("resumed");
  if (!resumed || !resumed->is_bool() || !resumed->as_bool())
    throw std::runtime_error(
        fmt::format("the context did not find session '{}' in its store", session.id()));
}

}  // namespace amplifier::host

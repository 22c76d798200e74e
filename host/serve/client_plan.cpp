#include "client_plan.hpp"

#include "agents.hpp"
#include "plan_trust.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string_view>

namespace amplifier::host::serve {
namespace {

// Modules whose purpose is to start programs the plan names.
constexpr std::array<std::string_view, 1> kRefusedModules = {"tool-mcp"};

void check_module(const ModuleSpec &spec, const std::string &path,
                  const std::set<std::string> &operator_modules,
                  std::vector<std::string> &refusals) {
  if (!spec.source.empty())
    refusals.push_back(fmt::format("{}.source: a client plan may not name module sources", path));
  if (std::find(kRefusedModules.begin(), kRefusedModules.end(), spec.module) !=
      kRefusedModules.end())
    refusals.push_back(fmt::format(
        "{}.module: a client plan may not mount {} (it starts programs)", path, spec.module));
  else if (!operator_modules.contains(spec.module))
    refusals.push_back(fmt::format(
        "{}.module: a client plan may mount only modules the operator's plans mount, not {}",
        path, spec.module));
  option_refusals(spec, path, refusals);
  config_refusals(spec, path, refusals);
}

}  // namespace

std::vector<std::string> client_plan_refusals(const MountPlan &plan,
                                              const std::set<std::string> &operator_modules) {
  std::vector<std::string> refusals;
  if (!plan.includes.empty())
    refusals.push_back("includes: a client plan may not include files");
  if (!plan.agents.empty()) refusals.push_back("agents: a client plan may not define agents");
  // Money and skill folders are the operator's: the default plan's budget and prices apply to a
  // client's plan (SessionFactory::client_plan), which may not loosen or reprice them, nor
  // name folders whose files the host reads.
  for (const char *key : kOperatorSessionKeys)
    if (plan.session_extra.contains(key))
      refusals.push_back(fmt::format("session.{}: only the operator sets it", key));
  for_each_module(plan, [&](const ModuleSpec &spec, const std::string &path, PlanSection) {
    check_module(spec, path, operator_modules, refusals);
  });
  return refusals;
}

}  // namespace amplifier::host::serve

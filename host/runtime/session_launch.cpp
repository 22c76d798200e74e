#include "session_launch.hpp"

#include "approval_prompt.hpp"
#include "child_policy.hpp"
#include "settings.hpp"

#include <cstdio>

#include "amplifier/coordinator.hpp"

namespace amplifier::host {
namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

// The operator's prices (settings.yaml `pricing:`) laid over the plan's (session.pricing),
// entry by entry. Trust: the plan may come from anywhere and could price a model at 0 to
// slip past a budget; the operator's settings are the operator's, so they win. A settings
// file that cannot be read is said, and the plan's prices stand.
void apply_operator_pricing(MountPlan &plan) {
  json::object operator_prices;
  try {
    if (auto settings = load_user_settings()) operator_prices = pricing_of(*settings);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "amplifier: warning: the operator's prices are not used: %s\n", e.what());
    return;
  }
  if (operator_prices.empty()) return;
  json::value &pricing = plan.session_extra["pricing"];
  if (!pricing.is_object()) pricing = json::object{};
  for (auto &entry : operator_prices) pricing.get_object()[entry.key()] = std::move(entry.value());
}

}  // namespace

std::unique_ptr<Session> launch_session(MountPlan plan, LaunchOptions options) {
  apply_operator_pricing(plan);
  const fs::path folder = options.folder ? *options.folder : fs::current_path();
  auto children =
      std::make_shared<HostChildPolicy>(std::move(options.attach_to_children), folder);
  if (options.confine_to_folder) options.session.confined_to = fs::absolute(folder);
  options.session.child_policy = std::move(children);
  auto session = std::make_unique<Session>(std::move(plan), options.session);
  if (options.approvals_at_terminal) {
    Session &s = *session;
    s.coordinator().set_approval_handler(
        terminal_approval_handler([&s] { return s.cancellation().is_cancelled(); }));
  }
  publish_agents(*session, folder);
  return session;
}

}  // namespace amplifier::host
